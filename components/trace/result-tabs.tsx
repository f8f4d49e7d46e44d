'use client';

import { type KeyboardEvent, useId, useRef, useState } from 'react';
import { JsonTree } from './json-tree';
import { LargeText } from './large-text';

export interface ResultData {
  output: unknown;
  stdout: string | null;
  stderr: string | null;
  exitCode: number | null;
  modelMessage: string | null;
  /** False while the call has not finished. */
  finished: boolean;
  failed: boolean;
}

type TabKey = 'output' | 'stdout' | 'stderr' | 'exit' | 'model';

/** Beyond this size a JSON output is shown as text: a tree of a megabyte helps nobody. */
const TREE_LIMIT_CHARS = 200_000;

function OutputView({ output, finished }: { output: unknown; finished: boolean }) {
  const [raw, setRaw] = useState(false);
  if (output === null || output === undefined) {
    return <p className="p-3 italic text-fg-muted">{finished ? 'No output was recorded.' : 'Not finished yet.'}</p>;
  }
  if (typeof output === 'string') return <LargeText text={output} testId="output-text" />;
  const text = JSON.stringify(output, null, 2);
  const tree = !raw && text.length <= TREE_LIMIT_CHARS;
  return (
    <div>
      <div className="flex justify-end gap-1 border-b border-line px-2 py-1 text-xs">
        <button
          type="button"
          aria-pressed={!raw}
          className="rounded px-1.5 py-0.5 text-fg-muted hover:bg-muted aria-pressed:bg-muted aria-pressed:text-fg"
          onClick={() => setRaw(false)}
          disabled={text.length > TREE_LIMIT_CHARS}
        >
          Tree
        </button>
        <button
          type="button"
          aria-pressed={raw}
          className="rounded px-1.5 py-0.5 text-fg-muted hover:bg-muted aria-pressed:bg-muted aria-pressed:text-fg"
          onClick={() => setRaw(true)}
        >
          Raw
        </button>
      </div>
      {tree ? (
        <div className="max-h-[32rem] overflow-auto p-3">
          <JsonTree value={output} label="Output" testId="output-tree" />
        </div>
      ) : (
        <LargeText text={text} testId="output-text" />
      )}
    </div>
  );
}

/**
 * The result of a call in tabs: Output, stdout, stderr, exit code, and what the model saw (the
 * exact message content returned to the agent). Arrow keys move between tabs (WAI-ARIA tabs).
 */
export function ResultTabs({ data }: { data: ResultData }) {
  const tabs: { key: TabKey; label: string; hint?: string }[] = [
    { key: 'output', label: 'Output' },
    { key: 'stdout', label: 'stdout', hint: data.stdout ? undefined : 'empty' },
    { key: 'stderr', label: 'stderr', hint: data.stderr ? undefined : 'empty' },
    { key: 'exit', label: 'Exit code', hint: data.exitCode === null ? 'n/a' : String(data.exitCode) },
    { key: 'model', label: 'What the model saw' },
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
            className="-mb-px rounded-t border border-transparent px-2.5 py-1 text-xs text-fg-muted hover:text-fg aria-selected:border-line aria-selected:border-b-bg aria-selected:bg-bg aria-selected:font-medium aria-selected:text-fg"
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
        {active === 'output' && <OutputView output={data.output} finished={data.finished} />}
        {active === 'stdout' && <LargeText text={data.stdout} empty="Nothing on stdout." />}
        {active === 'stderr' && <LargeText text={data.stderr} empty="Nothing on stderr." />}
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
            </p>
            <LargeText
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
