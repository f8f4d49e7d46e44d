import { CircleCheck, CircleStop, CircleX, LoaderCircle, Timer } from 'lucide-react';
import type { Attempt, TraceStage } from '@/lib/executor/types';
import { formatDuration } from '@/lib/ui/format';
import { AttemptFaultBadge } from '../faults/attempt-fault-badge';
import { VisibleText } from '../visible-text';

const OUTCOME = {
  ok: { Icon: CircleCheck, className: 'text-emerald-700 dark:text-emerald-300' },
  error: { Icon: CircleX, className: 'text-red-700 dark:text-red-300' },
  timeout: { Icon: Timer, className: 'text-orange-700 dark:text-orange-300' },
  cancelled: { Icon: CircleStop, className: 'text-zinc-700 dark:text-zinc-300' },
  running: { Icon: LoaderCircle, className: 'text-blue-700 dark:text-blue-300' },
} as const;

/** Why there is no attempt to show, in words that match where the call is. */
function emptyText(unfinished: boolean, stages: TraceStage[]): string {
  if (!unfinished) {
    // A stage skipped with a reason says why (recording mode: "served from the recording …").
    const execute = stages.find((s) => s.name === 'execute');
    if (execute?.status === 'skipped' && execute.detail) return `No attempt ran: ${execute.detail}.`;
    return 'No attempt ran: the call stopped before the execute stage.';
  }
  const now = stages.find((s) => s.status === 'running' || s.status === 'waiting');
  if (now?.name === 'execute') return 'The first attempt is starting…';
  return `No attempt yet: the call is at the ${now?.name ?? 'first'} stage.`;
}

/**
 * Every attempt: number, tool, start offset, duration, outcome, error, retryable, its time limit,
 * backoff before the next; and, when any attempt had one, the fault injected into it (kind, what
 * it did, the rule that fired it). The attempt in progress says "running" and its elapsed time so far
 * (the caller adds it, see `withElapsed`).
 */
export function AttemptsTable({
  attempts,
  unfinished = false,
  stages = [],
}: {
  attempts: Attempt[];
  /** The call has not ended: an empty list means "not yet", not "never". */
  unfinished?: boolean;
  stages?: TraceStage[];
}) {
  if (attempts.length === 0) {
    return (
      <p className="text-fg-muted italic" data-testid="attempts-empty">
        {emptyText(unfinished, stages)}
      </p>
    );
  }
  const th = 'px-2 py-1 font-medium';
  const faulted = attempts.some((a) => a.fault);
  return (
    <div className="overflow-x-auto rounded border border-line">
      <table className="w-full border-collapse text-left text-xs" data-testid="attempts-table">
        <caption className="sr-only">Attempts</caption>
        <thead className="bg-subtle text-[11px] uppercase tracking-wide text-fg-muted">
          <tr>
            <th scope="col" className={th}>
              #
            </th>
            <th scope="col" className={th}>
              Tool
            </th>
            <th scope="col" className={`${th} text-right`}>
              Start
            </th>
            <th scope="col" className={`${th} text-right`}>
              Duration
            </th>
            <th scope="col" className={th}>
              Outcome
            </th>
            {faulted && (
              <th scope="col" className={th}>
                Fault
              </th>
            )}
            <th scope="col" className={th}>
              Error
            </th>
            <th scope="col" className={th}>
              Retryable
            </th>
            <th scope="col" className={`${th} text-right`}>
              Limit
            </th>
            <th scope="col" className={`${th} text-right`}>
              Backoff
            </th>
          </tr>
        </thead>
        <tbody>
          {attempts.map((a) => {
            const look = OUTCOME[a.outcome];
            const running = a.outcome === 'running';
            return (
              <tr
                key={`${a.tool}-${a.number}-${a.startedAt}`}
                className={`border-t border-line align-top ${running ? 'bg-blue-50/60 dark:bg-blue-950/30' : ''}`}
                data-testid="attempt-row"
                data-outcome={a.outcome}
                data-fault={a.fault?.kind}
              >
                <td className="px-2 py-1 tabular-nums">{a.number}</td>
                <td className="px-2 py-1 font-mono">
                  <VisibleText text={a.tool} />
                  {a.fallback && <span className="ml-1 font-sans text-fg-muted">(fallback)</span>}
                </td>
                <td className="whitespace-nowrap px-2 py-1 text-right tabular-nums">+{formatDuration(a.startedAt)}</td>
                <td className="whitespace-nowrap px-2 py-1 text-right tabular-nums" data-testid="attempt-duration">
                  {formatDuration(a.durationMs)}
                  {running && ' so far'}
                </td>
                <td className={`px-2 py-1 ${look.className}`}>
                  <span className="inline-flex items-center gap-1">
                    <look.Icon size={12} className={running ? 'animate-spin' : ''} aria-hidden />
                    {a.outcome}
                  </span>
                </td>
                {faulted && (
                  <td className="px-2 py-1">
                    {a.fault ? (
                      <AttemptFaultBadge fault={a.fault} attempt={a.number} />
                    ) : (
                      <span className="text-fg-muted">—</span>
                    )}
                  </td>
                )}
                <td className="px-2 py-1">
                  {a.error ? (
                    <>
                      <span className="font-mono">{a.error.code}</span>{' '}
                      <span className="text-fg-muted">{a.error.message}</span>
                    </>
                  ) : (
                    <span className="text-fg-muted">—</span>
                  )}
                </td>
                <td className="px-2 py-1">{a.error ? (a.error.retryable ? 'yes' : 'no') : '—'}</td>
                <td className="whitespace-nowrap px-2 py-1 text-right tabular-nums">
                  {a.timeoutMs === undefined ? '—' : formatDuration(a.timeoutMs)}
                </td>
                <td className="px-2 py-1 text-right tabular-nums">
                  {a.backoffMs === null ? '—' : formatDuration(a.backoffMs)}
                  {a.backoffReason && (
                    <div className="text-[11px] text-fg-muted" data-testid="backoff-reason">
                      {a.backoffReason}
                    </div>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
