'use client';

import { CircleStop, Hourglass, LoaderCircle } from 'lucide-react';
import { useCallback, useMemo } from 'react';
import { approvalWaitMs } from '@/lib/executor/approval-wait';
import { formatDuration } from '@/lib/ui/format';
import type { JsonSchema } from '@/lib/ui/json-schema';
import { currentActivity, withElapsed } from '@/lib/ui/live-trace';
import { type TraceJson, traceFromJson } from '@/lib/ui/trace-from-json';
import { useMay } from '../access/viewer';
import { lineageOf } from '../replay/lineage-of';
import { useReplayControls } from '../replay/use-replay-controls';
import { LiveIndicator } from '../traces/live-indicator';
import { ApprovalPanel } from './approval-panel';
import { AssistantMessage } from './assistant-message';
import { AttemptsTable } from './attempts-table';
import { ErrorPanel } from './error-panel';
import { LiveOutput } from './live-output';
import { PipelineStrip } from './pipeline-strip';
import { ResultTabs } from './result-tabs';
import { TraceArguments } from './trace-arguments';
import { type Neighbours, TraceHeader } from './trace-header';
import { useCancelCall } from './use-cancel-call';
import { useLiveTrace } from './use-live-trace';
import { useServerNow } from './use-server-now';
import { useTraceKeys } from './use-trace-keys';
import { Waterfall } from './waterfall';

function Section({ title, children, id }: { title: string; children: React.ReactNode; id: string }) {
  return (
    <section aria-labelledby={id} className="flex flex-col gap-1.5">
      <h2 id={id} className="text-[11px] font-semibold uppercase tracking-wide text-fg-muted">
        {title}
      </h2>
      {children}
    </section>
  );
}

/**
 * One call, stage by stage, live while it runs.
 * 1. The server renders the snapshot (the executor's live one for a running call); `useLiveTrace`
 *    keeps it fresh: refetched on this trace's events, when the stream (re)opens, polled while it is down.
 * 2. Between snapshots the timers tick on the server's clock: the stage and attempt in progress
 *    grow, the waterfall with them.
 * 3. `[` / `]` open the newer / older call; `c` (or the button) cancels a running call; `r`, `e`,
 *    `f` replay it (as recorded, with edits, with a fault).
 */
export function LiveTraceView({
  initial,
  toolKnown,
  neighbours,
  schema = null,
}: {
  initial: TraceJson;
  toolKnown: boolean;
  neighbours: Neighbours;
  /** The tool's input schema, for "Replay with edits"; null for an unknown tool. */
  schema?: JsonSchema | null;
}) {
  const id = initial.id;
  const { json, unfinished, connection, refetch, setJson } = useLiveTrace(initial);
  // An imported call is a record from elsewhere: nothing runs here to follow, cancel or replay.
  const imported = json.imported === true;
  const mayReplay = useMay('calls.replay');
  const mayCancel = useMay('calls.cancel');

  const { cancel, state: cancelState } = useCancelCall(
    id,
    useCallback(
      (trace: TraceJson | null) => {
        if (trace) setJson(trace);
        else refetch();
      },
      [setJson, refetch],
    ),
  );
  useTraceKeys({ neighbours, onCancel: unfinished && mayCancel ? cancel : undefined });

  const now = useServerNow(json.server_time, unfinished);
  // The snapshot changes per fetch, the timers per tick: only the timed parts re-render on a tick.
  const snapshot = useMemo(() => traceFromJson(json), [json]);
  const trace = withElapsed(snapshot, now);
  const activity = currentActivity(trace);
  const cancelledStage = trace.status === 'cancelled' ? (trace.error?.stage ?? null) : null;
  const replay = useReplayControls({
    traceId: id,
    tool: trace.tool,
    sideEffect: trace.sideEffect,
    recorded: snapshot.arguments,
    schema,
    enabled: !imported && mayReplay,
  });

  return (
    <article
      className="flex flex-col gap-5"
      data-testid="trace-view"
      data-trace-id={trace.id}
      data-status={trace.status}
    >
      <TraceHeader
        trace={trace}
        toolKnown={toolKnown}
        neighbours={neighbours}
        live={unfinished ? <LiveIndicator connection={connection} /> : undefined}
        lineage={lineageOf(json)}
        replayActions={replay.buttons}
      />
      {replay.panel}

      {unfinished && (
        <div
          className={`flex flex-wrap items-center gap-x-3 gap-y-1 rounded border-2 px-3 py-2 text-sm ${trace.status === 'awaiting_approval' ? 'border-amber-300 bg-amber-50/60 dark:border-amber-800 dark:bg-amber-950/30' : 'border-blue-300 bg-blue-50/60 dark:border-blue-800 dark:bg-blue-950/30'}`}
          data-testid="trace-now"
          role="status"
        >
          {trace.status === 'awaiting_approval' ? (
            <Hourglass size={15} className="text-amber-700 dark:text-amber-300" aria-hidden />
          ) : (
            <LoaderCircle size={15} className="animate-spin text-blue-700 dark:text-blue-300" aria-hidden />
          )}
          <span className="font-medium" data-testid="trace-activity">
            {activity}
          </span>
          <span className="tabular-nums text-fg-muted" data-testid="trace-elapsed">
            {trace.status === 'awaiting_approval'
              ? `waiting ${formatDuration(approvalWaitMs(trace.approval, now))}`
              : `${formatDuration(trace.latencyMs)} elapsed`}
          </span>
          {mayCancel && (
            <button
              type="button"
              onClick={() => void cancel()}
              disabled={cancelState.phase === 'cancelling'}
              className="ml-auto inline-flex items-center gap-1 rounded border border-red-300 bg-bg px-2 py-0.5 text-xs font-medium text-red-700 hover:bg-red-50 disabled:opacity-60 dark:border-red-800 dark:text-red-300 dark:hover:bg-red-950/40"
              data-testid="cancel-call"
              aria-keyshortcuts="c"
              title="Cancel this call (c): its process is stopped and the call is recorded as cancelled"
            >
              <CircleStop size={13} aria-hidden />
              {cancelState.phase === 'cancelling' ? 'Cancelling…' : 'Cancel'}
            </button>
          )}
          {cancelState.phase === 'failed' && (
            <p role="alert" className="basis-full text-xs text-red-700 dark:text-red-300">
              Could not cancel: {cancelState.message}
            </p>
          )}
        </div>
      )}

      {json.assistant_message && (
        <Section title="Assistant" id="assistant-heading">
          <AssistantMessage message={json.assistant_message} />
        </Section>
      )}

      <Section title="Pipeline" id="pipeline-heading">
        <PipelineStrip stages={trace.stages} callStatus={trace.status} cancelledStage={cancelledStage} />
      </Section>

      {trace.error && <ErrorPanel error={trace.error} />}

      {trace.approval && (
        <Section title="Approval" id="approval-heading">
          <ApprovalPanel
            traceId={trace.id}
            tool={trace.tool}
            principal={trace.principal}
            approval={trace.approval}
            original={trace.arguments}
            edited={trace.editedArguments}
            skewMs={unfinished ? Math.round((now - Date.now()) / 1_000) * 1_000 : 0}
            readOnly={imported}
          />
        </Section>
      )}

      <Section title="Waterfall" id="waterfall-heading">
        <Waterfall
          stages={trace.stages}
          attempts={trace.attempts}
          totalMs={trace.latencyMs}
          cancelledStage={cancelledStage}
        />
      </Section>

      <div className="grid gap-5 xl:grid-cols-[minmax(0,2fr)_minmax(0,3fr)]">
        <Section title="Arguments (redacted)" id="arguments-heading">
          <TraceArguments trace={snapshot} />
        </Section>
        <Section title={unfinished ? 'Output so far' : 'Result'} id="result-heading">
          {unfinished ? (
            <LiveOutput stdout={trace.stdout} stderr={trace.stderr} />
          ) : (
            <ResultTabs
              data={{
                output: trace.output,
                stdout: trace.stdout,
                stderr: trace.stderr,
                exitCode: trace.exitCode,
                modelMessage: trace.modelMessage,
                modelTruncation: trace.modelTruncation,
                finished: true,
                failed: trace.error !== null,
              }}
            />
          )}
        </Section>
      </div>

      <Section title={`Attempts (${trace.attempts.length})`} id="attempts-heading">
        <AttemptsTable attempts={trace.attempts} unfinished={unfinished} stages={trace.stages} />
      </Section>
    </article>
  );
}
