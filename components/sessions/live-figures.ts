import type { SessionDetailJson } from '@/lib/api/sessions';
import type { SessionCallJson } from './timeline-layout';

type AttemptJson = SessionCallJson['attempts'][number];

const epoch = (iso: string | null) => (iso === null ? Number.NaN : Date.parse(iso));

const isUnfinished = (call: SessionCallJson) => call.status === 'running' || call.status === 'awaiting_approval';

/** How long an attempt has lasted by `now`: its duration, or while it runs the time since it started. */
export function attemptMsAt(call: SessionCallJson, attempt: AttemptJson, now: number): number {
  if (attempt.outcome !== 'running') return attempt.duration_ms;
  const started = epoch(call.started_at) + attempt.started_at;
  return Number.isNaN(started) ? 0 : Math.max(0, now - started);
}

/**
 * How long a call has waited for a person by `now`: to the decision, or so far while it waits (to
 * its end if it ended undecided); null when it never waited. As the server's `approvalWaitOf`.
 */
export function approvalWaitAt(call: SessionCallJson, now: number): number | null {
  if (!call.approval) return null;
  const requested = epoch(call.approval.requested_at);
  if (Number.isNaN(requested)) return null;
  const decided = epoch(call.approval.decided_at);
  const finished = epoch(call.finished_at);
  const until = !Number.isNaN(decided)
    ? decided
    : call.status === 'awaiting_approval' || Number.isNaN(finished)
      ? now
      : finished;
  return Math.max(0, until - requested);
}

/**
 * A call's latency by `now`, execution only: as recorded once it ended; while it runs, the time
 * since it arrived less its wait for approval (so it holds still while the call waits).
 */
export function latencyAt(call: SessionCallJson, now: number): number | null {
  if (!isUnfinished(call)) return call.latency_ms;
  const started = epoch(call.started_at);
  if (Number.isNaN(started)) return null;
  return Math.max(0, now - started - (approvalWaitAt(call, now) ?? 0));
}

export interface SessionFigures {
  /** From the first call's start to the last call's end, or to now while a call runs or waits. */
  wallMs: number;
  /** First attempts (a running one up to now). */
  executingMs: number;
  /** Later attempts (retries, fallbacks) and the backoff gaps before them. */
  retryingMs: number;
  /** Waits for a decision (an open one up to now). */
  approvalWaitMs: number;
}

/**
 * Where the session's time went by `now`, from its calls as the server sent them: the same sums
 * as the server's `totals` (see `sessionTotals`), ticking between two refreshes while calls run.
 */
export function sessionFiguresAt(session: SessionDetailJson, now: number): SessionFigures {
  let executingMs = 0;
  let retryingMs = 0;
  let approvalWaitMs = 0;
  for (const call of session.calls) {
    approvalWaitMs += approvalWaitAt(call, now) ?? 0;
    call.attempts.forEach((attempt, index) => {
      const ms = attemptMsAt(call, attempt, now);
      if (index === 0) {
        executingMs += ms;
        return;
      }
      const previous = call.attempts[index - 1];
      const gap = previous ? attempt.started_at - (previous.started_at + previous.duration_ms) : 0;
      retryingMs += ms + Math.max(0, gap);
    });
  }
  const first = epoch(session.first_call_at);
  const wallMs = session.ended_at === null && !Number.isNaN(first) ? Math.max(0, now - first) : session.wall_ms;
  return { wallMs, executingMs, retryingMs, approvalWaitMs };
}
