'use client';

import { ArrowLeft, ArrowLeftRight, CassetteTape, Columns2, Rows2 } from 'lucide-react';
import Link from 'next/link';
import { type ReactNode, useEffect, useMemo, useState } from 'react';
import { outputDifferences } from '@/lib/replay/call-verdict';
import { type IgnoreRules, ignoreRules } from '@/lib/replay/volatile-paths';
import { argumentsThatRan, compareRows, compareVerdict } from '@/lib/ui/compare-summary';
import { formatDuration } from '@/lib/ui/format';
import { withElapsed } from '@/lib/ui/live-trace';
import { type TraceJson, type TraceView, traceFromJson } from '@/lib/ui/trace-from-json';
import { compareUrl } from '../replay/compare-url';
import { lineageOf } from '../replay/lineage-of';
import { isTypingTarget } from '../shortcuts-dialog';
import { StatusBadge } from '../status';
import { Timestamp, useHydrated } from '../timestamp';
import { AttemptsTable } from '../trace/attempts-table';
import { useLiveTrace } from '../trace/use-live-trace';
import { useServerNow } from '../trace/use-server-now';
import { LiveIndicator } from '../traces/live-indicator';
import { IgnoredToggle } from './ignored-toggle';
import { JsonDiff } from './json-diff';
import { TextDiff } from './text-diff';
import { type DiffLayout, useDiffLayout } from './use-diff-layout';

const CHANGED =
  'border-amber-300 bg-amber-50 text-amber-900 dark:border-amber-800 dark:bg-amber-950/50 dark:text-amber-200';
const SAME = 'border-line bg-subtle text-fg-muted';
const NO_PATHS: string[] = [];
const PENDING = 'border-blue-200 bg-blue-50 text-blue-800 dark:border-blue-900 dark:bg-blue-950/50 dark:text-blue-300';

/**
 * A "changed" / "unchanged" badge — or "pending" while a call has not ended, which is no verdict
 * yet: the word says it, the colour helps.
 */
export function ChangeBadge({
  changed,
  what,
  testId,
  pending = false,
}: {
  changed: boolean;
  what: string;
  testId?: string;
  pending?: boolean;
}) {
  return (
    <span
      className={`inline-flex items-center gap-1 rounded border px-1.5 py-0.5 text-[11px] font-medium ${pending ? PENDING : changed ? CHANGED : SAME}`}
      data-testid={testId}
      data-changed={!pending && changed}
      data-pending={pending}
      title={pending ? 'A call has not ended yet: the verdict comes when both have' : undefined}
    >
      {what} {pending ? 'pending' : changed ? 'changed' : 'unchanged'}
    </span>
  );
}

function Section({
  title,
  id,
  changed,
  children,
}: {
  title: string;
  id: string;
  changed?: boolean;
  children: ReactNode;
}) {
  return (
    <section aria-labelledby={id} className="flex flex-col gap-1.5" data-testid={`compare-${id}`}>
      <h2 id={id} className="flex items-center gap-2 text-[11px] font-semibold uppercase tracking-wide text-fg-muted">
        {title}
        {changed !== undefined && (
          <span className={`rounded border px-1 text-[10px] normal-case tracking-normal ${changed ? CHANGED : SAME}`}>
            {changed ? 'changed' : 'same'}
          </span>
        )}
      </h2>
      {children}
    </section>
  );
}

/** The output as text: strings as they are, anything else as indented JSON; null when there is none. */
const outputText = (output: unknown): string | null =>
  output === null || output === undefined
    ? null
    : typeof output === 'string'
      ? output
      : JSON.stringify(output, null, 2);

function OutputDiff({
  a,
  b,
  layout,
  ignore,
  showIgnored,
}: {
  a: TraceView;
  b: TraceView;
  layout: DiffLayout;
  ignore: IgnoreRules;
  showIgnored: boolean;
}) {
  const structured = (v: unknown) => v !== null && v !== undefined && typeof v === 'object';
  if (structured(a.output) && structured(b.output)) {
    return (
      <JsonDiff
        before={a.output}
        after={b.output}
        layout={layout}
        testId="output-diff"
        ignore={ignore}
        showIgnored={showIgnored}
      />
    );
  }
  const x = outputText(a.output);
  const y = outputText(b.output);
  if (x === null && y === null) {
    return (
      <p className="text-xs text-fg-muted" data-testid="output-diff" data-changed="false">
        No output on either side{a.error || b.error ? ' (see the error above)' : ''}.
      </p>
    );
  }
  return <TextDiff before={x ?? ''} after={y ?? ''} layout={layout} testId="output-diff" />;
}

function StreamDiff({
  name,
  a,
  b,
  layout,
}: {
  name: 'stdout' | 'stderr';
  a: string | null;
  b: string | null;
  layout: DiffLayout;
}) {
  if (!a && !b) {
    return (
      <p className="text-xs text-fg-muted" data-testid={`${name}-diff`} data-changed="false">
        Empty on both sides.
      </p>
    );
  }
  return <TextDiff before={a ?? ''} after={b ?? ''} layout={layout} testId={`${name}-diff`} />;
}

function SideHeading({ trace, role, side }: { trace: TraceView; role: string; side: 'a' | 'b' }) {
  return (
    <div className="flex min-w-0 flex-wrap items-center gap-x-2 gap-y-0.5" data-testid={`compare-side-${side}`}>
      <span className="rounded bg-muted px-1 font-mono text-[11px] font-semibold">{side.toUpperCase()}</span>
      <span className="text-xs text-fg-muted">{role}</span>
      <Link
        href={`/traces/${encodeURIComponent(trace.id)}`}
        className="min-w-0 truncate font-mono text-xs text-accent hover:underline"
        title={trace.id}
        data-testid={`compare-link-${side}`}
      >
        {trace.id}
      </Link>
      <StatusBadge status={trace.status} testId={`compare-status-${side}`} />
      <span className="text-xs text-fg-muted">
        <Timestamp ms={trace.createdAt} />
      </span>
    </div>
  );
}

/** What each side is to the other: the original and its replay, or two calls. */
function roles(a: TraceJson, b: TraceJson): [string, string] {
  if (b.replay_of === a.id) return ['original', 'replay'];
  if (a.replay_of === b.id) return ['replay', 'original'];
  const servedB = lineageOf(b).servedFrom;
  if (servedB === a.id) return ['recorded', 'served from the recording'];
  if (a.replay_of && a.replay_of === b.replay_of) return ['replay', 'replay'];
  return ['call', 'call'];
}

/**
 * Two calls side by side — usually a call and its replay: a verdict (outcome / output / arguments
 * changed or not), the summary (status, error, latency with its delta, attempts, exit code, …),
 * then the diffs of the arguments that ran, the output (structural for JSON, lines for text),
 * stdout and stderr, and both attempt lists. Live while either call runs: "pending" until both have
 * ended. Output differences at volatile paths (`ignorePaths`, the config's, beside the defaults)
 * are counted apart and shown struck through on request. `v` switches between side by side and
 * unified; the choice is remembered.
 */
export function CompareView({
  initialA,
  initialB,
  ignorePaths = NO_PATHS,
}: {
  initialA: TraceJson;
  initialB: TraceJson;
  /** `compare.ignore_paths` of the config. */
  ignorePaths?: string[];
}) {
  const liveA = useLiveTrace(initialA);
  const liveB = useLiveTrace(initialB);
  const [layout, setLayout] = useDiffLayout();
  // true once hydrated: `v` listens from then on
  const ready = useHydrated();
  const unfinished = liveA.unfinished || liveB.unfinished;
  const now = useServerNow(liveB.unfinished ? liveB.json.server_time : liveA.json.server_time, unfinished);
  const snapA = useMemo(() => traceFromJson(liveA.json), [liveA.json]);
  const snapB = useMemo(() => traceFromJson(liveB.json), [liveB.json]);
  const a = withElapsed(snapA, now);
  const b = withElapsed(snapB, now);
  const rows = compareRows(a, b);
  const rules = useMemo(() => ignoreRules(ignorePaths), [ignorePaths]);
  const verdict = useMemo(() => compareVerdict(snapA, snapB, rules), [snapA, snapB, rules]);
  const [showIgnored, setShowIgnored] = useState(false);
  // The output alone, volatile paths aside (the verdict counts stdout, stderr and the exit code too).
  const outputChanged = useMemo(
    () => outputDifferences(snapA.output ?? null, snapB.output ?? null, rules).real > 0,
    [snapA.output, snapB.output, rules],
  );
  const [roleA, roleB] = roles(liveA.json, liveB.json);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.metaKey || event.ctrlKey || event.altKey || isTypingTarget(event.target)) return;
      if (event.key === 'v') {
        event.preventDefault();
        setLayout(layout === 'split' ? 'unified' : 'split');
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [layout, setLayout]);

  const toggle =
    'inline-flex items-center gap-1 rounded px-1.5 py-0.5 text-xs text-fg-muted hover:bg-muted aria-pressed:bg-muted aria-pressed:font-medium aria-pressed:text-fg';
  const argsA = argumentsThatRan(snapA);
  const argsB = argumentsThatRan(snapB);
  const textArgs = typeof argsA === 'string' || typeof argsB === 'string';

  return (
    <article
      className="flex flex-col gap-4"
      data-testid="compare-view"
      data-a={a.id}
      data-b={b.id}
      data-ready={ready || undefined}
    >
      <header className="flex flex-col gap-2">
        <div className="flex flex-wrap items-center gap-2">
          <Link
            href={`/traces/${encodeURIComponent(roleA === 'replay' ? b.id : a.id)}`}
            className="inline-flex items-center gap-1 text-xs text-fg-muted hover:text-fg"
          >
            <ArrowLeft size={12} aria-hidden /> {roleA === 'replay' ? 'Original' : 'Trace'}
          </Link>
          <div className="ml-auto flex items-center gap-1">
            <Link
              href={compareUrl(b.id, a.id)}
              className="inline-flex items-center gap-1 rounded border border-line px-1.5 py-0.5 text-xs text-fg-muted hover:bg-muted hover:text-fg"
              title="Swap the sides"
              data-testid="compare-swap"
            >
              <ArrowLeftRight size={12} aria-hidden /> Swap
            </Link>
            <fieldset
              className="flex items-center gap-0.5 rounded border border-line p-0.5"
              aria-label="Diff layout (v)"
            >
              <button
                type="button"
                aria-pressed={layout === 'split'}
                className={toggle}
                onClick={() => setLayout('split')}
                title="Side by side (v)"
                data-testid="layout-split"
              >
                <Columns2 size={12} aria-hidden /> Side by side
              </button>
              <button
                type="button"
                aria-pressed={layout === 'unified'}
                className={toggle}
                onClick={() => setLayout('unified')}
                title="Unified (v)"
                data-testid="layout-unified"
              >
                <Rows2 size={12} aria-hidden /> Unified
              </button>
            </fieldset>
          </div>
        </div>
        <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
          <h1 className="font-mono text-lg font-semibold">{a.tool === b.tool ? a.tool : `${a.tool} ↔ ${b.tool}`}</h1>
          <span className="text-sm text-fg-muted">
            {roleA} vs {roleB}
          </span>
          <ChangeBadge
            changed={verdict.outcomeChanged}
            pending={verdict.pending}
            what="Outcome"
            testId="verdict-outcome"
          />
          <ChangeBadge
            changed={verdict.outputChanged}
            pending={verdict.pending}
            what="Output"
            testId="verdict-output"
          />
          <ChangeBadge changed={verdict.argumentsChanged} what="Arguments" testId="verdict-arguments" />
          <IgnoredToggle
            count={verdict.ignored.length}
            shown={showIgnored}
            onShown={setShowIgnored}
            rules={rules.rules.map((rule) => rule.pattern)}
          />
          {unfinished && (
            <span className="inline-flex items-center gap-2 text-xs">
              <LiveIndicator connection={liveB.unfinished ? liveB.connection : liveA.connection} />
              <span className="text-fg-muted">
                {liveB.unfinished ? 'B' : 'A'} is still {(liveB.unfinished ? b : a).status.replace('_', ' ')}; this view
                updates live.
              </span>
            </span>
          )}
        </div>
        <div className="grid gap-1 md:grid-cols-2 md:gap-4">
          <SideHeading trace={a} role={roleA} side="a" />
          <SideHeading trace={b} role={roleB} side="b" />
        </div>
        {[a, b].map((t, i) => {
          const served = lineageOf(i === 0 ? liveA.json : liveB.json).servedFrom;
          return served ? (
            <p key={t.id} className="flex items-center gap-1 text-xs text-violet-800 dark:text-violet-300">
              <CassetteTape size={12} aria-hidden /> {i === 0 ? 'A' : 'B'} was served from the recording of{' '}
              <Link href={`/traces/${encodeURIComponent(served)}`} className="font-mono hover:underline">
                {served}
              </Link>
              ; nothing ran.
            </p>
          ) : null;
        })}
      </header>

      <div className="overflow-x-auto rounded border border-line">
        <table className="w-full border-collapse text-left text-xs" data-testid="compare-summary">
          <caption className="sr-only">The two calls field by field; changed fields are marked.</caption>
          <thead className="bg-subtle text-[11px] uppercase tracking-wide text-fg-muted">
            <tr>
              <th scope="col" className="w-28 px-2 py-1 font-medium">
                Field
              </th>
              <th scope="col" className="px-2 py-1 font-medium">
                A · {roleA}
              </th>
              <th scope="col" className="px-2 py-1 font-medium">
                B · {roleB}
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr
                key={row.field}
                className={`border-t border-line ${row.changed ? 'bg-amber-50/70 dark:bg-amber-950/25' : ''}`}
                data-testid="compare-row"
                data-field={row.field}
                data-changed={row.changed}
              >
                <th
                  scope="row"
                  className={`px-2 py-1 font-medium ${row.changed ? 'border-l-2 border-amber-500' : 'border-l-2 border-transparent'}`}
                >
                  {row.label}
                  {row.changed && (
                    <span className="ml-1 text-[10px] font-semibold uppercase text-amber-700 dark:text-amber-300">
                      changed
                    </span>
                  )}
                </th>
                <td className="max-w-0 px-2 py-1 font-mono [overflow-wrap:anywhere]">
                  {row.field === 'status' ? <StatusBadge status={a.status} /> : row.a}
                </td>
                <td className="max-w-0 px-2 py-1 font-mono [overflow-wrap:anywhere]">
                  {row.field === 'status' ? <StatusBadge status={b.status} /> : row.b}
                  {row.delta && <span className="ml-2 font-sans text-fg-muted">{row.delta}</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>

      <Section title="Arguments (redacted, as they ran)" id="arguments" changed={verdict.argumentsChanged}>
        {textArgs ? (
          <TextDiff
            before={typeof argsA === 'string' ? argsA : JSON.stringify(argsA, null, 2)}
            after={typeof argsB === 'string' ? argsB : JSON.stringify(argsB, null, 2)}
            layout={layout}
            testId="arguments-diff"
          />
        ) : (
          <JsonDiff before={argsA} after={argsB} layout={layout} testId="arguments-diff" />
        )}
      </Section>
      <Section title="Output" id="output" changed={verdict.pending ? undefined : outputChanged}>
        <OutputDiff a={snapA} b={snapB} layout={layout} ignore={rules} showIgnored={showIgnored} />
      </Section>
      <Section title="stdout" id="stdout" changed={(snapA.stdout ?? '') !== (snapB.stdout ?? '')}>
        {stdoutIsOutput(snapA) && stdoutIsOutput(snapB) ? (
          <p className="text-xs text-fg-muted" data-testid="stdout-diff" data-changed={snapA.stdout !== snapB.stdout}>
            The output above, on both sides: the tool's output is its stdout.
          </p>
        ) : (
          <StreamDiff name="stdout" a={snapA.stdout} b={snapB.stdout} layout={layout} />
        )}
      </Section>
      <Section title="stderr" id="stderr" changed={(snapA.stderr ?? '') !== (snapB.stderr ?? '')}>
        <StreamDiff name="stderr" a={snapA.stderr} b={snapB.stderr} layout={layout} />
      </Section>
      <Section title="Attempts" id="attempts">
        <div className="grid gap-3 xl:grid-cols-2">
          {[a, b].map((t, i) => (
            <div key={t.id} className="flex min-w-0 flex-col gap-1">
              <span className="text-xs text-fg-muted">
                {i === 0 ? 'A' : 'B'} · {t.attempts.length} attempt{t.attempts.length === 1 ? '' : 's'} ·{' '}
                {formatDuration(t.latencyMs)}
              </span>
              <AttemptsTable
                attempts={t.attempts}
                unfinished={i === 0 ? liveA.unfinished : liveB.unfinished}
                stages={t.stages}
              />
            </div>
          ))}
        </div>
      </Section>
    </article>
  );
}

/** A process tool whose output is its stdout as text: one diff says it all. */
const stdoutIsOutput = (t: TraceView) => typeof t.output === 'string' && t.output !== '' && t.output === t.stdout;
