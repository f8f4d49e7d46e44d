import { assistantMessagesByBatch } from '../calls/assistant-message';
import { MAX_SESSION_CALLS, type SessionCall } from '../db/session-types';
import { replayedSession } from '../replay/replayed-session';
import type { Toolscope } from '../server/create-toolscope';
import { findSessionLoops } from './session-findings';
import {
  approvalWaitOf,
  findingJson,
  sessionCallJson,
  sessionJson,
  sessionTotals,
  waitingBySession,
} from './session-json';

/**
 * A session's call as it is now: while it runs, the executor's live snapshot holds its status,
 * approval and attempts (the store has them as of its last write, attempts only at its end).
 */
function liveCall(ts: Pick<Toolscope, 'executor'>, call: SessionCall): SessionCall {
  if (call.status !== 'running' && call.status !== 'awaiting_approval') return call;
  const live = ts.executor.inFlight(call.id);
  if (!live) return call;
  return {
    ...call,
    status: live.status,
    approval: live.approval,
    attempts: live.attempts,
    attemptCount: live.attempts.length,
  };
}

/**
 * The session view's data: the session's fields, its calls in session order (at most
 * MAX_SESSION_CALLS, then `calls_truncated`) as they are now (running ones from the executor),
 * the session it replays, the loop findings over them and where the time went. The approval wait
 * counts open waits up to `now` here (the list counts finished ones); `running` and `waiting`
 * count the calls executing and awaiting a decision. Null when unknown.
 */
export function sessionDetail(ts: Pick<Toolscope, 'store' | 'executor' | 'approvals'>, id: string, now = Date.now()) {
  const session = id.length <= 256 ? ts.store.getSession(id) : null;
  if (!session) return null;
  const read = ts.store.sessionCalls(id, MAX_SESSION_CALLS);
  const calls = read.calls.map((call) => liveCall(ts, call));
  const truncated = read.truncated;
  const openWaits = calls.reduce(
    (sum, call) => sum + (call.approval?.decidedAt === null ? approvalWaitOf(call, now) : 0),
    0,
  );
  const waiting = waitingBySession(ts.approvals.list()).get(id) ?? 0;
  return {
    ...sessionJson(session, now, { approvalWaitMs: session.approvalWaitMs + openWaits, waiting }),
    calls: calls.map((call) => sessionCallJson(call, now)),
    calls_truncated: truncated,
    /** The session this one replays (one call's replay, or a session replay); null for an agent's run. */
    replay_of_session: replayedSession(ts.store, id, calls),
    findings: findSessionLoops(calls).map(findingJson),
    totals: sessionTotals(calls, now),
    /** What the model said with each batch's request, by batch id (batches sent without one are left out). */
    assistant_messages: assistantMessagesByBatch(
      calls.map((call) => call.batchId),
      ts.store,
    ),
  };
}

/** The session view's JSON as `GET /api/v1/sessions/:id` answers it. */
export type SessionDetailJson = NonNullable<ReturnType<typeof sessionDetail>>;
/** A row of `GET /api/v1/sessions`. */
export type SessionJson = ReturnType<typeof sessionJson>;
