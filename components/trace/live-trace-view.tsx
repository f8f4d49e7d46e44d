'use client';

import { useQuery, useQueryClient } from '@tanstack/react-query';
import { CircleStop, Hourglass, LoaderCircle } from 'lucide-react';
import { useCallback, useEffect, useMemo, useRef } from 'react';
import { formatDuration } from '@/lib/ui/format';
import { currentActivity, isUnfinished, withElapsed } from '@/lib/ui/live-trace';
import { type TraceJson, traceFromJson } from '@/lib/ui/trace-from-json';
import { LiveIndicator } from '../traces/live-indicator';
import { useTraceEvents } from '../use-trace-events';
import { ApprovalPanel } from './approval-panel';
import { AttemptsTable } from './attempts-table';
import { ErrorPanel } from './error-panel';
import { LiveOutput } from './live-output';
import { PipelineStrip } from './pipeline-strip';
import { ResultTabs } from './result-tabs';
import { TraceArguments } from './trace-arguments';
import { type Neighbours, TraceHeader } from './trace-header';
import { useCancelCall } from './use-cancel-call';
import { useServerNow } from './use-server-now';
import { useTraceKeys } from './use-trace-keys';
import { Waterfall } from './waterfall';

/** Events closer together than this cause one refetch. */
const REFETCH_THROTTLE_MS = 250;
/** While the event stream is down, a running call is polled this often. */
const POLL_MS = 2_000;

async function fetchTrace(id: string): Promise<TraceJson> {
  const response = await fetch(`/api/v1/traces/${encodeURIComponent(id)}`, { cache: 'no-store' });
  if (!response.ok) throw new Error(`trace ${id}: HTTP ${response.status}`);
  return (await response.json()) as TraceJson;
}

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
 * 1. The server renders the snapshot (the executor's live one for a running call); TanStack Query
 *    holds it and refetches `GET /api/v1/traces/:id` on this trace's events (throttled), each time
 *    the stream (re)opens, and by polling while the stream is down.
 * 2. Between snapshots the timers tick on the server's clock: the stage and attempt in progress
 *    grow, the waterfall with them.
 * 3. `[` / `]` open the newer / older call; `c` (or the button) cancels a running call.
 */
export function LiveTraceView({
  initial,
  toolKnown,
  neighbours,
}: {
  initial: TraceJson;
  toolKnown: boolean;
  neighbours: Neighbours;
}) {
  const id = initial.id;
  // server_time: each server render starts from its own fresh snapshot, never an older cached one.
  const queryKey = ['trace', id, initial.server_time];
  const queryClient = useQueryClient();
  const startedLive = isUnfinished(initial.status);
  const query = useQuery({
    queryKey,
    queryFn: () => fetchTrace(id),
    initialData: initial,
    staleTime: Number.POSITIVE_INFINITY,
    enabled: startedLive,
  });
  const json = query.data;
  const unfinished = isUnfinished(json.status);
  const refetch = query.refetch;

  const throttle = useRef<ReturnType<typeof setTimeout> | null>(null);
  const onEvent = useCallback(() => {
    if (throttle.current) return;
    throttle.current = setTimeout(() => {
      throttle.current = null;
      void refetch();
    }, REFETCH_THROTTLE_MS);
  }, [refetch]);
  useEffect(
    () => () => {
      if (throttle.current) clearTimeout(throttle.current);
    },
    [],
  );
  const connection = useTraceEvents(onEvent, { enabled: unfinished, trace: id });
  // The call may have moved on between the server render and the stream opening: catch up once live.
  const streamLive = connection.state === 'live';
  useEffect(() => {
    if (streamLive) void refetch();
  }, [streamLive, refetch]);
  const polling = unfinished && !streamLive;
  useEffect(() => {
    if (!polling) return;
    const timer = setInterval(() => void refetch(), POLL_MS);
    return () => clearInterval(timer);
  }, [polling, refetch]);

  const { cancel, state: cancelState } = useCancelCall(
    id,
    useCallback(
      (trace: TraceJson | null) => {
        if (trace) queryClient.setQueryData(['trace', id, initial.server_time], trace);
        else void refetch();
      },
      [queryClient, id, initial.server_time, refetch],
    ),
  );
  useTraceKeys({ neighbours, onCancel: unfinished ? cancel : undefined });

  const now = useServerNow(json.server_time, unfinished);
  // The snapshot changes per fetch, the timers per tick: only the timed parts re-render on a tick.
  const snapshot = useMemo(() => traceFromJson(json), [json]);
  const trace = withElapsed(snapshot, now);
  const activity = currentActivity(trace);
  const cancelledStage = trace.status === 'cancelled' ? (trace.error?.stage ?? null) : null;

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
      />

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
            {formatDuration(trace.latencyMs)} elapsed
          </span>
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
          {cancelState.phase === 'failed' && (
            <p role="alert" className="basis-full text-xs text-red-700 dark:text-red-300">
              Could not cancel: {cancelState.message}
            </p>
          )}
        </div>
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
            approval={trace.approval}
            original={trace.arguments}
            edited={trace.editedArguments}
            skewMs={unfinished ? Math.round((now - Date.now()) / 1_000) * 1_000 : 0}
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
