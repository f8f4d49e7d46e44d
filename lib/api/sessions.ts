import { z } from 'zod';
import { MAX_SESSION_CALLS, MAX_SESSION_LIMIT } from '../db/session-types';
import { isInvalidCursorError } from '../db/trace-store';
import type { Toolscope } from '../server/create-toolscope';
import { assistantMessagesByBatch } from './assistant-message';
import { zodMessage } from './handlers';
import { apiError, handle } from './http';
import { findSessionLoops } from './session-findings';
import { approvalWaitOf, findingJson, sessionCallJson, sessionJson, sessionTotals } from './session-json';

const sessionsQuery = z.object({
  q: z.string().max(256).optional(),
  failed: z
    .enum(['true', 'false', ''])
    .optional()
    .transform((v) => v === 'true'),
  limit: z.coerce.number().int().min(1).max(MAX_SESSION_LIMIT).optional(),
  cursor: z.string().max(1024).optional(),
});

/**
 * `GET /api/v1/sessions?q=&failed=&limit=&cursor=`: sessions, newest activity first, from the
 * trigger-kept aggregate. 200 `{ sessions, next_cursor }`; 400 `INVALID_QUERY` naming the
 * parameter; 400 `INVALID_CURSOR` for a cursor not handed out.
 */
export function listSessions(request: Request, ts: Pick<Toolscope, 'store'>, now = Date.now()): Promise<Response> {
  return handle(() => {
    const parsed = sessionsQuery.safeParse(Object.fromEntries(new URL(request.url).searchParams));
    if (!parsed.success) return apiError(400, 'INVALID_QUERY', zodMessage(parsed.error));
    const { q, failed, limit, cursor } = parsed.data;
    try {
      const page = ts.store.listSessions({
        text: q || undefined,
        failedOnly: failed,
        limit,
        cursor: cursor || undefined,
      });
      return Response.json({
        sessions: page.items.map((session) => sessionJson(session, now)),
        next_cursor: page.nextCursor,
      });
    } catch (error) {
      if (isInvalidCursorError(error)) return apiError(400, 'INVALID_CURSOR', error.message);
      throw error;
    }
  });
}

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

/** `GET /api/v1/sessions/:id`: 200 the session view's data; 404 `NOT_FOUND` for a session with no calls. */
export function getSession(id: string, ts: Pick<Toolscope, 'store'>, now = Date.now()): Promise<Response> {
  return handle(() => {
    const detail = sessionDetail(ts, id, now);
    if (!detail) return apiError(404, 'NOT_FOUND', `No session with id "${id.slice(0, 256)}".`);
    return Response.json(detail);
  });
}
