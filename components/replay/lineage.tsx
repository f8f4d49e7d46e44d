'use client';

import { useQuery } from '@tanstack/react-query';
import { CassetteTape, GitCompareArrows, RotateCcw } from 'lucide-react';
import Link from 'next/link';
import type { CallStatus } from '@/lib/executor/types';
import { shortId } from '@/lib/ui/format';
import { isUnfinished } from '@/lib/ui/live-trace';
import { StatusBadge } from '../status';
import { compareUrl } from './compare-url';

/** Where a call comes from and what came of it: the call it replays, its replays, the recording it was served from. */
export interface Lineage {
  replayOf: string | null;
  replays: string[];
  /** The replays still running or awaiting approval when the trace was read. */
  inFlight: { id: string; status: CallStatus }[];
  servedFrom: string | null;
}

/** Replays listed before "and n older" (a replay in flight is listed whatever its place). */
const SHOWN_REPLAYS = 6;
/** How often the status of a replay in flight is read again. */
const POLL_MS = 2_000;

/** The statuses of the traces `ids` now; a trace that cannot be read is left out. */
async function fetchStatuses(ids: readonly string[]): Promise<Record<string, CallStatus>> {
  const read = await Promise.all(
    ids.map(async (id) => {
      const response = await fetch(`/api/v1/traces/${encodeURIComponent(id)}`, { cache: 'no-store' });
      return response.ok ? ([id, ((await response.json()) as { status: CallStatus }).status] as const) : null;
    }),
  );
  return Object.fromEntries(read.filter((entry) => entry !== null));
}

/**
 * The status of each replay that was in flight: as the trace said, then read again every
 * POLL_MS until every one has ended (a finished trace holds no event stream, and a replay's
 * events are in its own session's).
 */
function useReplayStatuses(inFlight: Lineage['inFlight']): ReadonlyMap<string, CallStatus> {
  const ids = inFlight.map((replay) => replay.id);
  const { data } = useQuery({
    queryKey: ['replay-statuses', ...ids],
    queryFn: () => fetchStatuses(ids),
    enabled: ids.length > 0,
    initialData: () => Object.fromEntries(inFlight.map((replay) => [replay.id, replay.status])),
    staleTime: POLL_MS,
    refetchInterval: (query) =>
      Object.values(query.state.data ?? {}).some((status) => isUnfinished(status)) ? POLL_MS : false,
  });
  return new Map(Object.entries(data ?? {}));
}

const idLink = 'font-mono text-accent hover:underline';
const compareLink =
  'inline-flex items-center gap-0.5 rounded border border-line px-1 text-[11px] text-fg-muted hover:bg-muted hover:text-fg';

function TraceLink({ id, testId, full = false }: { id: string; testId?: string; full?: boolean }) {
  return (
    <Link href={`/traces/${encodeURIComponent(id)}`} className={idLink} title={id} data-testid={testId}>
      {full ? id : shortId(id)}
    </Link>
  );
}

function CompareLink({ from, to, testId }: { from: string; to: string; testId: string }) {
  return (
    <Link href={compareUrl(from, to)} className={compareLink} data-testid={testId}>
      <GitCompareArrows size={11} aria-hidden /> Compare
    </Link>
  );
}

/**
 * The call's lineage under its header: "Replay of <id>" with a compare link, its replays (each
 * with a compare link, and its status while it runs or awaits approval), and, for a call served
 * in recording mode, "Served from the recording of <id>" — nothing ran for it. Nothing is shown
 * for a plain call.
 */
export function LineageBar({ traceId, lineage }: { traceId: string; lineage: Lineage }) {
  const { replayOf, replays, servedFrom } = lineage;
  const statuses = useReplayStatuses(lineage.inFlight);
  if (!replayOf && replays.length === 0 && !servedFrom) return null;
  const shown = replays.filter((id, index) => index >= replays.length - SHOWN_REPLAYS || statuses.has(id)).reverse();
  return (
    <div className="flex flex-col gap-1 text-xs" data-testid="lineage">
      {servedFrom && (
        <p
          className="flex flex-wrap items-center gap-1.5 rounded border border-violet-300 bg-violet-50 px-2 py-1 text-violet-950 dark:border-violet-800 dark:bg-violet-950/40 dark:text-violet-100"
          data-testid="served-from"
        >
          <CassetteTape size={13} aria-hidden />
          <span>
            Served from the recording of <TraceLink id={servedFrom} testId="served-from-link" full /> — nothing ran; the
            recorded result was returned.
          </span>
          <CompareLink from={servedFrom} to={traceId} testId="served-from-compare" />
        </p>
      )}
      {(replayOf || replays.length > 0) && (
        <div className="flex flex-wrap items-center gap-x-4 gap-y-1">
          {replayOf && (
            <span className="inline-flex items-center gap-1.5" data-testid="replay-of">
              <RotateCcw size={12} aria-hidden className="text-fg-muted" />
              Replay of <TraceLink id={replayOf} testId="replay-of-link" full />
              <CompareLink from={replayOf} to={traceId} testId="replay-of-compare" />
            </span>
          )}
          {replays.length > 0 && (
            <span className="inline-flex flex-wrap items-center gap-1.5" data-testid="replays">
              <span className="text-fg-muted">
                Replayed {replays.length} time{replays.length === 1 ? '' : 's'}:
              </span>
              {shown.map((id) => (
                <span key={id} className="inline-flex items-center gap-1" data-testid="replay-item" data-trace-id={id}>
                  <TraceLink id={id} />
                  {statuses.has(id) && <StatusBadge status={statuses.get(id) as CallStatus} testId="replay-status" />}
                  <CompareLink from={traceId} to={id} testId="replay-compare" />
                </span>
              ))}
              {replays.length > shown.length && (
                <span className="text-fg-muted">and {replays.length - shown.length} older</span>
              )}
            </span>
          )}
        </div>
      )}
    </div>
  );
}
