import { z } from 'zod';
import { sessionExport } from '../../api/export-import';
import { sessionListJson } from '../../api/session-json';
import { sessionDetail } from '../../api/sessions';
import { searchTextParam } from '../../api/trace-filter-query';
import { MAX_SESSION_LIMIT } from '../../db/session-types';
import { isInvalidCursorError } from '../../db/trace-store';
import { ApiError } from '../../errors';
import { compareSessions } from '../../replay/compare-sessions';
import { isSessionTooLargeError } from '../../replay/session-calls';
import { sessionComparisonJson } from '../../replay/session-comparison-json';
import { sessionsReplaying } from '../../replay/sessions-replaying';
import { configuredIgnoreRules } from '../../replay/volatile-paths';
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
          sessions: sessionListJson(page.items, ts.approvals.list(), now),
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
     * `GET /api/v1/sessions/:id/replays`: the sessions that replay calls of `:id` (one call's
     * `<id>~replay-<n>`, or a session replay), newest first, for "Compare with…". 200
     * `{ "sessions": [{ ...a sessions list row, "kind": "call" | "session" }] }`; 404 for a session with no calls.
     */
    method: 'GET',
    path: '/api/v1/sessions/:id/replays',
    action: 'sessions.read',
    handle(c, ts) {
      const id = paramOf(c, 'id');
      if (id.length > 256 || !ts.store.getSession(id)) throw noCalls(id);
      const now = Date.now();
      const found = sessionsReplaying(ts.store, id);
      const rows = sessionListJson(
        found.map((entry) => entry.session),
        ts.approvals.list(),
        now,
      );
      return json(c, { sessions: rows.map((row, index) => ({ ...row, kind: found[index]!.kind })) });
    },
  },
  {
    /**
     * `GET /api/v1/sessions/:id/compare/:other`: each call of session `:id` beside its pair in
     * `:other`, paired by identity (`replay_of`, then tool call id, then tool and arguments; see
     * `compareSessions`), with its verdict (`same`, `changed`, `pending`, `only_in_a`, `only_in_b`),
     * volatile output paths left out (`compare.ignore_paths`), and the pair's compare page; `shared`
     * is 0 for unrelated sessions. 404 when either has no calls.
     */
    method: 'GET',
    path: '/api/v1/sessions/:id/compare/:other',
    action: 'sessions.read',
    handle(c, ts) {
      const sessionId = paramOf(c, 'id');
      const otherId = paramOf(c, 'other');
      const rules = configuredIgnoreRules(ts.config.compare.ignorePaths);
      let pairs: ReturnType<typeof compareSessions>;
      try {
        pairs =
          sessionId.length > 256 || otherId.length > 256 ? null : compareSessions(ts.store, sessionId, otherId, rules);
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
      return json(c, sessionComparisonJson(sessionId, otherId, pairs, rules));
    },
  },
]);
