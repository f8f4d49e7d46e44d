import { z } from 'zod';
import { sessionExport } from '../../api/export-import';
import { summaryJson } from '../../api/serialize';
import { sessionJson } from '../../api/session-json';
import { sessionDetail } from '../../api/sessions';
import { searchTextParam } from '../../api/trace-filter-query';
import { MAX_SESSION_LIMIT } from '../../db/session-types';
import { isInvalidCursorError } from '../../db/trace-store';
import { ApiError } from '../../errors';
import { compareSessions } from '../../replay/compare-sessions';
import { isSessionTooLargeError } from '../../replay/session-calls';
import { attachment } from '../attachment';
import { audit } from '../audit';
import { paramOf, parseWith, queryOf } from '../request';
import { json } from '../respond';
import { defineRoutes } from '../route';
import { replaySession } from './replay';

const sessionsQuery = z.object({
  q: searchTextParam.optional(),
  failed: z
    .enum(['true', 'false', ''])
    .optional()
    .transform((v) => v === 'true'),
  limit: z.coerce.number().int().min(1).max(MAX_SESSION_LIMIT).optional(),
  cursor: z.string().max(1024).optional(),
});

const noCalls = (id: string) => new ApiError('NOT_FOUND', `No calls in session "${id.slice(0, 256)}".`);

export default defineRoutes([
  {
    /**
     * `GET /api/v1/sessions?q=&failed=&limit=&cursor=`: sessions, newest activity first, from the
     * trigger-kept aggregate. 200 `{ sessions, next_cursor }`; 400 INVALID_QUERY; 400 INVALID_CURSOR.
     */
    method: 'GET',
    path: '/api/v1/sessions',
    action: 'sessions.read',
    handle(c, ts) {
      const { q, failed, limit, cursor } = parseWith(sessionsQuery, queryOf(c), 'INVALID_QUERY');
      const now = Date.now();
      try {
        const page = ts.store.listSessions({
          text: q || undefined,
          failedOnly: failed,
          limit,
          cursor: cursor || undefined,
        });
        return json(c, {
          sessions: page.items.map((session) => sessionJson(session, now)),
          next_cursor: page.nextCursor,
        });
      } catch (error) {
        if (isInvalidCursorError(error)) throw new ApiError('INVALID_CURSOR', error.message);
        throw error;
      }
    },
  },
  {
    /** `GET /api/v1/sessions/:id`: the session view's data (`sessionDetail`); 404 for a session with no calls. */
    method: 'GET',
    path: '/api/v1/sessions/:id',
    action: 'sessions.read',
    handle(c, ts) {
      const id = paramOf(c, 'id');
      const detail = sessionDetail(ts, id);
      if (!detail) throw new ApiError('NOT_FOUND', `No session with id "${id.slice(0, 256)}".`);
      return json(c, detail);
    },
  },
  {
    /**
     * `DELETE /api/v1/sessions/:id`: deletes every call of a session except those still running or
     * awaiting approval. 200 `{ "deleted": n, "skipped_running": m }`; 404 when it has no calls.
     */
    method: 'DELETE',
    path: '/api/v1/sessions/:id',
    action: 'calls.delete',
    handle(c, ts) {
      const id = paramOf(c, 'id');
      const { deleted, skippedRunning } =
        id.length <= 256 ? ts.store.deleteSession(id) : { deleted: 0, skippedRunning: 0 };
      if (deleted + skippedRunning === 0) throw noCalls(id);
      audit(c, ts, 'session.deleted', id, { deleted, skipped_running: skippedRunning });
      return json(c, { deleted, skipped_running: skippedRunning });
    },
  },
  {
    /** `POST /api/v1/sessions/:id/replay` with an optional body `{ "fault"?, "wait"? }`: see `replaySession`. */
    method: 'POST',
    path: '/api/v1/sessions/:id/replay',
    action: 'calls.replay',
    body: 'optional-json',
    handle: replaySession,
  },
  {
    /** `GET /api/v1/sessions/:id/export`: every call of the session as one export file (`kind: "session"`). */
    method: 'GET',
    path: '/api/v1/sessions/:id/export',
    action: 'sessions.read',
    handle(c, ts) {
      const id = paramOf(c, 'id');
      return attachment(sessionExport(id, ts), id);
    },
  },
  {
    /**
     * `GET /api/v1/sessions/:id/compare/:other`: each call of session `:id` beside its counterpart
     * in `:other` (its replay by `replay_of`, else by position), with whether the outcome (status,
     * error code) or the output changed, and the compare page of the pair. 404 when either has no calls.
     */
    method: 'GET',
    path: '/api/v1/sessions/:id/compare/:other',
    action: 'sessions.read',
    handle(c, ts) {
      const sessionId = paramOf(c, 'id');
      const otherId = paramOf(c, 'other');
      let pairs: ReturnType<typeof compareSessions>;
      try {
        pairs = sessionId.length > 256 || otherId.length > 256 ? null : compareSessions(ts.store, sessionId, otherId);
      } catch (error) {
        if (isSessionTooLargeError(error)) throw new ApiError('SESSION_TOO_LARGE', `${error.message}.`);
        throw error;
      }
      if (!pairs) {
        throw new ApiError(
          'NOT_FOUND',
          `No calls to compare: session "${sessionId.slice(0, 256)}" or "${otherId.slice(0, 256)}" has none.`,
        );
      }
      return json(c, {
        session_id: sessionId,
        other_session_id: otherId,
        pairs: pairs.map((pair) => ({
          original: pair.original && summaryJson(pair.original),
          replay: pair.replay && summaryJson(pair.replay),
          outcome_changed: pair.outcomeChanged,
          output_changed: pair.outputChanged,
          compare_url:
            pair.original && pair.replay
              ? `/traces/${encodeURIComponent(pair.original.id)}/compare/${encodeURIComponent(pair.replay.id)}`
              : null,
        })),
      });
    },
  },
]);
