'use client';

import { type KeyboardEvent, useId, useMemo, useRef, useState } from 'react';
import type { ModelTruncation } from '@/lib/executor/types';
import { formatBytes, formatCount } from '@/lib/ui/format';
import { parseJsonPrefix } from '@/lib/ui/json-prefix';
import { describeModelTruncation } from '@/lib/ui/model-truncation';
import { JsonTree } from './json-tree';
import { LargeText } from './large-text';

export interface ResultData {
  output: unknown;
  stdout: string | null;
  stderr: string | null;
  exitCode: number | null;
  modelMessage: string | null;
  /** Set when the model got only the head and tail of the output (optional for older callers). */
  modelTruncation?: ModelTruncation | null;
  /** False while the call has not finished. */
  finished: boolean;
  failed: boolean;
}

type TabKey = 'output' | 'stdout' | 'stderr' | 'exit' | 'model';

/** Beyond this size a JSON output is shown as text: a tree of a megabyte helps nobody. */
const TREE_LIMIT_CHARS = 200_000;

const encoder = new TextEncoder();
const byteSize = (text: string | null) => (text ? formatBytes(encoder.encode(text).length) : 'empty');

/** The output's text: strings as they are, anything else as indented JSON. */
function outputText(output: unknown): string | null {
  if (output === null || output === undefined) return null;
  return typeof output === 'string' ? output : JSON.stringify(output, null, 2);
}

type TreeSource = { value: unknown; note?: string } | { reason: string } | null;

/**
 * What the tree view can show: a JSON value as it is, or a string that looks like JSON (cut by a
 * cap or truncation) parsed as far as it goes, with a note — or the reason there is no tree.
 */
function treeSource(output: unknown, text: string): TreeSource {
  if (text.length > TREE_LIMIT_CHARS) {
    return {
      reason: `Shown as text: ${text.length.toLocaleString('en-US')} characters is beyond the tree view's ${TREE_LIMIT_CHARS.toLocaleString('en-US')}.`,
    };
  }
  if (typeof output !== 'string') return { value: output };
  if (!/^\s*[[{]/.test(output)) return null;
  const parsed = parseJsonPrefix(output);
  if (!parsed.ok) return { reason: `Shown as text: it starts like JSON but does not parse (${parsed.reason})` };
  if (parsed.complete) return { value: parsed.value };
  return {
    value: parsed.value,
    note: `The output was cut: the tree shows what parses in its first ${formatCount(parsed.parsedChars)} of ${formatCount(parsed.totalChars)} characters, open brackets closed. Raw shows the text as stored.`,
  };
}

const toggle =
  'rounded px-1.5 py-0.5 text-fg-muted hover:bg-muted aria-pressed:bg-muted aria-pressed:text-fg disabled:opacity-50';

function OutputView({ output, text, finished }: { output: unknown; text: string | null; finished: boolean }) {
  const [raw, setRaw] = useState(false);
  const source = useMemo(() => (text === null ? null : treeSource(output, text)), [output, text]);
  if (text === null) {
    return <p className="p-3 italic text-fg-muted">{finished ? 'No output was recorded.' : 'Not finished yet.'}</p>;
  }
  if (source === null) return <LargeText text={text} testId="output-text" downloadName="output.txt" />;
  const tree = 'value' in source && !raw;
  return (
    <div>
      <div className="flex items-center justify-end gap-1 border-b border-line px-2 py-1 text-xs">
        {'reason' in source && (
          <span className="mr-auto text-fg-muted" data-testid="tree-unavailable">
            {source.reason}
          </span>
        )}
        <button
          type="button"
          aria-pressed={tree}
          className={toggle}
          onClick={() => setRaw(false)}
          disabled={'reason' in source}
        >
          Tree
        </button>
        <button type="button" aria-pressed={!tree} className={toggle} onClick={() => setRaw(true)}>
          Raw
        </button>
      </div>
      {tree ? (
        <div className="max-h-[32rem] overflow-auto p-3">
          {source.note && (
            <p
              className="mb-2 rounded border border-amber-300 bg-amber-50 px-2 py-1 text-xs text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200"
              data-testid="tree-partial"
            >
              {source.note}
            </p>
          )}
          <JsonTree value={source.value} label="Output" testId="output-tree" />
        </div>
      ) : (
        <LargeText text={text} testId="output-text" downloadName="output.txt" />
      )}
    </div>
  );
}

/**
 * The result of a call in tabs: Output, stdout, stderr, exit code, and what the model saw (the
 * exact message content returned to the agent). Arrow keys move between tabs (WAI-ARIA tabs).
 */
export function ResultTabs({ data }: { data: ResultData }) {
  const text = useMemo(() => outputText(data.output), [data.output]);
  const sizes = useMemo(
    () => ({ output: byteSize(text), stdout: byteSize(data.stdout), stderr: byteSize(data.stderr) }),
    [text, data.stdout, data.stderr],
  );
  const tabs: { key: TabKey; label: string; hint?: string }[] = [
    { key: 'output', label: 'Output', hint: sizes.output },
    { key: 'stdout', label: 'stdout', hint: sizes.stdout },
    { key: 'stderr', label: 'stderr', hint: sizes.stderr },
    { key: 'exit', label: 'Exit code', hint: data.exitCode === null ? 'n/a' : String(data.exitCode) },
    { key: 'model', label: 'What the model saw', hint: data.modelTruncation ? 'cut' : undefined },
  ];
  const [active, setActive] = useState<TabKey>(data.failed && data.output == null ? 'model' : 'output');
  const id = useId();
  const refs = useRef<Record<string, HTMLButtonElement | null>>({});

  const onKeyDown = (event: KeyboardEvent) => {
    const index = tabs.findIndex((t) => t.key === active);
    let next = index;
    if (event.key === 'ArrowRight') next = (index + 1) % tabs.length;
    else if (event.key === 'ArrowLeft') next = (index - 1 + tabs.length) % tabs.length;
    else if (event.key === 'Home') next = 0;
    else if (event.key === 'End') next = tabs.length - 1;
    else return;
    event.preventDefault();
    const key = tabs[next]!.key;
    setActive(key);
    refs.current[key]?.focus();
  };

  return (
    <div className="rounded border border-line" data-testid="result-tabs">
      <div
        role="tablist"
        aria-label="Result"
        className="flex flex-wrap gap-0.5 border-b border-line bg-subtle px-1 pt-1"
        onKeyDown={onKeyDown}
      >
        {tabs.map((tab) => (
          <button
            key={tab.key}
            ref={(el) => {
              refs.current[tab.key] = el;
            }}
            type="button"
            role="tab"
            id={`${id}-${tab.key}-tab`}
            aria-selected={active === tab.key}
            aria-controls={`${id}-${tab.key}-panel`}
            tabIndex={active === tab.key ? 0 : -1}
            data-testid={`result-tab-${tab.key}`}
            onClick={() => setActive(tab.key)}
            className="-mb-px shrink-0 whitespace-nowrap rounded-t border border-transparent px-2.5 py-1 text-xs text-fg-muted hover:text-fg aria-selected:border-line aria-selected:border-b-bg aria-selected:bg-bg aria-selected:font-medium aria-selected:text-fg"
          >
            {tab.label}
            {tab.hint && <span className="ml-1 text-[10px] text-fg-muted">({tab.hint})</span>}
          </button>
        ))}
      </div>
      <div
        role="tabpanel"
        id={`${id}-${active}-panel`}
        aria-labelledby={`${id}-${active}-tab`}
        data-testid={`result-panel-${active}`}
      >
        {active === 'output' && <OutputView output={data.output} text={text} finished={data.finished} />}
        {active === 'stdout' && <LargeText text={data.stdout} empty="Nothing on stdout." downloadName="stdout.txt" />}
        {active === 'stderr' && <LargeText text={data.stderr} empty="Nothing on stderr." downloadName="stderr.txt" />}
        {active === 'exit' && (
          <p className="p-3 font-mono">
            {data.exitCode === null ? (
              <span className="italic text-fg-muted">Not a process result.</span>
            ) : (
              data.exitCode
            )}
          </p>
        )}
        {active === 'model' && (
          <div>
            <p className="border-b border-line px-3 py-1.5 text-xs text-fg-muted">
              The exact content of the <code className="font-mono">role: "tool"</code> message returned to the agent.
              {data.modelTruncation && (
                <span
                  className="mt-0.5 block font-medium text-amber-800 dark:text-amber-300"
                  data-testid="model-truncation"
                >
                  {describeModelTruncation(data.modelTruncation)}
                </span>
              )}
            </p>
            <LargeText
              downloadName="model-message.txt"
              text={data.modelMessage}
              empty={data.finished ? 'No message recorded.' : 'Not finished yet.'}
              testId="model-message"
            />
          </div>
        )}
      </div>
    </div>
  );
}
