import { assistantMessagesByBatch } from '../calls/assistant-message';
import { MAX_SESSION_CALLS } from '../db/session-types';
import type { Toolscope } from '../server/create-toolscope';
import { findSessionLoops } from './session-findings';
import { approvalWaitOf, findingJson, sessionCallJson, sessionJson, sessionTotals } from './session-json';

/**
 * The session view's data: the session's fields, its calls in session order (at most
 * MAX_SESSION_CALLS, then `calls_truncated`), the loop findings over them and where the time
 * went. The approval wait counts open waits up to `now` here (the list counts finished ones). Null when unknown.
 */
export function sessionDetail(ts: Pick<Toolscope, 'store'>, id: string, now = Date.now()) {
  const session = id.length <= 256 ? ts.store.getSession(id) : null;
  if (!session) return null;
  const { calls, truncated } = ts.store.sessionCalls(id, MAX_SESSION_CALLS);
  const openWaits = calls.reduce(
    (sum, call) => sum + (call.approval?.decidedAt === null ? approvalWaitOf(call, now) : 0),
    0,
  );
  return {
    ...sessionJson(session, now, session.approvalWaitMs + openWaits),
    calls: calls.map(sessionCallJson),
    calls_truncated: truncated,
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
