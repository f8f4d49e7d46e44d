import type { Toolscope } from '../server/create-toolscope';
import { apiError, handle } from './http';

/**
 * `DELETE /api/v1/traces/:id`: deletes one call. 200 `{ "deleted": 1 }`; 404 `NOT_FOUND`; 409
 * `STILL_RUNNING` for a call running or awaiting approval (cancel or decide it first).
 */
export function deleteTrace(id: string, ts: Pick<Toolscope, 'store'>): Promise<Response> {
  return handle(() => {
    const outcome = id.length <= 256 ? ts.store.delete(id) : 'not_found';
    if (outcome === 'not_found') return apiError(404, 'NOT_FOUND', `No trace with id "${id.slice(0, 256)}".`);
    if (outcome === 'running') {
      return apiError(
        409,
        'STILL_RUNNING',
        'The call is still running or awaiting approval; cancel it or decide it first.',
      );
    }
    return Response.json({ deleted: 1 });
  });
}

/**
 * `DELETE /api/v1/sessions/:id`: deletes every call of a session except those still running or
 * awaiting approval. 200 `{ "deleted": n, "skipped_running": m }`; 404 when the session has no calls.
 */
export function deleteSession(sessionId: string, ts: Pick<Toolscope, 'store'>): Promise<Response> {
  return handle(() => {
    const { deleted, skippedRunning } =
      sessionId.length <= 256 ? ts.store.deleteSession(sessionId) : { deleted: 0, skippedRunning: 0 };
    if (deleted + skippedRunning === 0) {
      return apiError(404, 'NOT_FOUND', `No calls in session "${sessionId.slice(0, 256)}".`);
    }
    return Response.json({ deleted, skipped_running: skippedRunning });
  });
}
