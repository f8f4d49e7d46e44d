import type { SessionCall, SessionSummary } from '../db/session-types';
import { approvalWaitMs } from '../executor/approval-wait';
import { iso, summaryJson } from './serialize';
import type { SessionFinding } from './session-findings';

/** When a session ended: its last call's end (never its start); null while a call runs or waits. */
export function endedAt(session: SessionSummary): number | null {
  if (session.running > 0) return null;
  return Math.max(session.lastFinishedAt ?? session.lastCallAt, session.lastCallAt);
}

/** Wall time of a session: from the first start to the last call's end, or to now while a call runs or waits. */
export function wallMs(session: SessionSummary, now: number): number {
  return Math.max(0, (endedAt(session) ?? now) - session.firstCallAt);
}

/** What a session's row knows beyond the `sessions` aggregate. */
export interface SessionExtras {
  /** Summed approval waits (ms); by default the aggregate's, of the waits that ended. */
  approvalWaitMs?: number;
  /** Calls awaiting approval now (the aggregate counts them among `running`). */
  waiting?: number;
}

/**
 * A session as the sessions list (and the head of the detail) shows it. `running` counts the calls
 * executing now, `waiting` those awaiting a person's decision; `ended_at` is the last call's end,
 * null while either is above zero.
 */
export function sessionJson(session: SessionSummary, now: number, extras: SessionExtras = {}) {
  const waiting = Math.min(session.running, extras.waiting ?? 0);
  return {
    id: session.id,
    first_call_at: iso(session.firstCallAt),
    last_call_at: iso(session.lastCallAt),
    ended_at: iso(endedAt(session)),
    calls: session.calls,
    failed: session.failed,
    denied: session.denied,
    running: session.running - waiting,
    waiting,
    approval_wait_ms: Math.round(extras.approvalWaitMs ?? session.approvalWaitMs),
    wall_ms: Math.round(wallMs(session, now)),
    imported: session.imported,
  };
}

/** Calls awaiting approval now, by session id, from the approvals queue (every waiting call is in it). */
export function waitingBySession(pending: readonly { sessionId: string | null }[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const { sessionId } of pending) {
    if (sessionId !== null) counts.set(sessionId, (counts.get(sessionId) ?? 0) + 1);
  }
  return counts;
}

/** The sessions list's rows (`GET /api/v1/sessions`, the Sessions page): each with its calls waiting now. */
export function sessionListJson(
  sessions: readonly SessionSummary[],
  pending: readonly { sessionId: string | null }[],
  now: number,
) {
  const waiting = waitingBySession(pending);
  return sessions.map((session) => sessionJson(session, now, { waiting: waiting.get(session.id) ?? 0 }));
}

/** How long a call has waited for approval: to its decision, or to now while it waits (to its end if it ended undecided). */
export function approvalWaitOf(call: SessionCall, now: number): number {
  const until = call.status === 'awaiting_approval' ? now : (call.finishedAt ?? now);
  return approvalWaitMs(call.approval, until) ?? 0;
}

/**
 * A call of the session view as of `now`: the list summary plus its batch, times, approval wait
 * (an open one up to now) and attempts. A running attempt's `duration_ms` is 0, as in the trace:
 * it lasts from `started_at` to now.
 */
export function sessionCallJson(call: SessionCall, now: number) {
  return {
    ...summaryJson(call),
    approval_wait_ms: call.approval ? Math.round(approvalWaitOf(call, now)) : null,
    batch_id: call.batchId,
    started_at: iso(call.createdAt),
    finished_at: iso(call.finishedAt),
    approval: call.approval
      ? {
          requested_at: iso(call.approval.requestedAt),
          decided_at: iso(call.approval.decidedAt),
          decision: call.approval.decision,
        }
      : null,
    attempts: call.attempts.map((attempt) => ({
      number: attempt.number,
      started_at: attempt.startedAt,
      duration_ms: attempt.durationMs,
      outcome: attempt.outcome,
    })),
  };
}

/** How long an attempt has lasted by `now`: its duration, or while it runs the time since it started. */
function attemptMs(call: SessionCall, attempt: SessionCall['attempts'][number], now: number): number {
  if (attempt.outcome !== 'running') return attempt.durationMs;
  return Math.max(0, now - (call.createdAt + attempt.startedAt));
}

/**
 * Where a session's time went, summed over its calls: `executing_ms` the first attempts,
 * `retrying_ms` every later attempt (retries and fallbacks) and the backoff gaps before them,
 * `approval_wait_ms` the waits for a decision. An attempt running and a wait still open count up
 * to `now`.
 */
export function sessionTotals(calls: readonly SessionCall[], now: number) {
  let executing = 0;
  let retrying = 0;
  let waiting = 0;
  for (const call of calls) {
    waiting += approvalWaitOf(call, now);
    call.attempts.forEach((attempt, index) => {
      if (index === 0) {
        executing += attemptMs(call, attempt, now);
        return;
      }
      const previous = call.attempts[index - 1];
      const gap = previous ? attempt.startedAt - (previous.startedAt + previous.durationMs) : 0;
      retrying += attemptMs(call, attempt, now) + Math.max(0, gap);
    });
  }
  return {
    executing_ms: Math.round(executing),
    retrying_ms: Math.round(retrying),
    approval_wait_ms: Math.round(waiting),
  };
}

export function findingJson(finding: SessionFinding) {
  return { kind: finding.kind, tool: finding.tool, count: finding.count, trace_ids: finding.traceIds };
}
