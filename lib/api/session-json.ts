import type { SessionCall, SessionSummary } from '../db/session-types';
import { iso, summaryJson } from './serialize';
import type { SessionFinding } from './session-findings';

/** Wall time of a session: from the first start to the last finish, or to now while a call runs. */
export function wallMs(session: SessionSummary, now: number): number {
  const end = session.running > 0 ? now : Math.max(session.lastFinishedAt ?? session.lastCallAt, session.lastCallAt);
  return Math.max(0, end - session.firstCallAt);
}

/** A session as the sessions list (and the head of the detail) shows it. */
export function sessionJson(session: SessionSummary, now: number, approvalWaitMs = session.approvalWaitMs) {
  return {
    id: session.id,
    first_call_at: iso(session.firstCallAt),
    last_call_at: iso(session.lastCallAt),
    calls: session.calls,
    failed: session.failed,
    denied: session.denied,
    running: session.running,
    approval_wait_ms: Math.round(approvalWaitMs),
    wall_ms: Math.round(wallMs(session, now)),
    imported: session.imported,
  };
}

/** How long a call has waited for approval: to its decision, or to now while it waits. */
export function approvalWaitOf(call: SessionCall, now: number): number {
  const approval = call.approval;
  if (!approval) return 0;
  if (approval.decidedAt !== null) return Math.max(0, approval.decidedAt - approval.requestedAt);
  return call.status === 'awaiting_approval' ? Math.max(0, now - approval.requestedAt) : 0;
}

/** A call of the session view: the list summary plus its batch, times, approval wait and attempts. */
export function sessionCallJson(call: SessionCall) {
  return {
    ...summaryJson(call),
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

/**
 * Where a session's time went, summed over its calls: `executing_ms` the first attempts,
 * `retrying_ms` every later attempt (retries and fallbacks) and the backoff gaps before them,
 * `approval_wait_ms` the waits for a decision (an open one up to now).
 */
export function sessionTotals(calls: readonly SessionCall[], now: number) {
  let executing = 0;
  let retrying = 0;
  let waiting = 0;
  for (const call of calls) {
    waiting += approvalWaitOf(call, now);
    call.attempts.forEach((attempt, index) => {
      if (index === 0) {
        executing += attempt.durationMs;
        return;
      }
      const previous = call.attempts[index - 1];
      const gap = previous ? attempt.startedAt - (previous.startedAt + previous.durationMs) : 0;
      retrying += attempt.durationMs + Math.max(0, gap);
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
