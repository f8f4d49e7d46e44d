import type { SqliteDatabase } from './open-database';
import { STATUS_INDEXED } from './schema';
import { storedIdForms } from './trace-id';
import { type DeleteOutcome, type PruneOptions, type SessionDeletion, UNFINISHED_STATUSES } from './trace-store';

// An imported call is never written to again, whatever its status: it goes like a finished one.
const FINISHED = `(status NOT IN (${UNFINISHED_STATUSES.map((status) => `'${status}'`).join(', ')}) OR imported = 1)`;
const UNFINISHED = `status IN (${UNFINISHED_STATUSES.map((status) => `'${status}'`).join(', ')}) AND ${STATUS_INDEXED} AND imported = 0`;

/**
 * The statements behind `delete`, `deleteSession` and `prune`; exported for the query-plan tests.
 * Every DELETE keeps unfinished calls: their executor is still going to write them. The
 * `tool_counts` triggers keep the catalog totals right as rows go.
 */
export const TRACE_DELETE_SQL = {
  one: `DELETE FROM tool_calls WHERE id IN (@id, @idText) AND ${FINISHED}`,
  exists: 'SELECT 1 FROM tool_calls WHERE id IN (@id, @idText)',
  session: `DELETE FROM tool_calls WHERE session_id = ? AND ${FINISHED}`,
  sessionUnfinished: `SELECT count(*) FROM tool_calls WHERE session_id = ? AND ${UNFINISHED}`,
  // Oldest first through the created_at index, a chunk at a time. Imported calls are kept: they
  // were made elsewhere, maybe long ago, and brought here on purpose (deleted by hand, or by maxCalls).
  expired: `DELETE FROM tool_calls WHERE seq IN (SELECT seq FROM tool_calls
    WHERE created_at < @before AND ${FINISHED} AND imported = 0 ORDER BY created_at LIMIT @limit)`,
  // The total is the sum of the trigger-kept counts, so "how many over the bound" costs no count(*).
  total: 'SELECT coalesce(sum(calls), 0) FROM tool_counts',
  excess: `DELETE FROM tool_calls WHERE seq IN (SELECT seq FROM tool_calls
    WHERE ${FINISHED} ORDER BY seq LIMIT @limit)`,
} as const;

/** Builds the SQLite deletions; each runs in one transaction. */
export function createSqliteTraceDeletion(sqlite: SqliteDatabase) {
  const one = sqlite.prepare(TRACE_DELETE_SQL.one);
  const exists = sqlite.prepare(TRACE_DELETE_SQL.exists).pluck();
  const session = sqlite.prepare(TRACE_DELETE_SQL.session);
  const sessionUnfinished = sqlite.prepare(TRACE_DELETE_SQL.sessionUnfinished).pluck();
  const expired = sqlite.prepare(TRACE_DELETE_SQL.expired);
  const total = sqlite.prepare(TRACE_DELETE_SQL.total).pluck();
  const excess = sqlite.prepare(TRACE_DELETE_SQL.excess);

  return {
    delete: sqlite.transaction((id: string): DeleteOutcome => {
      const forms = storedIdForms(id);
      if (one.run(forms).changes > 0) return 'deleted';
      return exists.get(forms) === undefined ? 'not_found' : 'running';
    }),

    deleteSession: sqlite.transaction(
      (sessionId: string): SessionDeletion => ({
        deleted: session.run(sessionId).changes,
        skippedRunning: sessionUnfinished.get(sessionId) as number,
      }),
    ),

    prune: sqlite.transaction(({ createdBefore, keepNewest, limit }: PruneOptions): number => {
      let left = Math.max(0, Math.floor(limit));
      if (createdBefore !== undefined && left > 0) left -= expired.run({ before: createdBefore, limit: left }).changes;
      if (keepNewest !== undefined && left > 0) {
        const over = (total.get() as number) - Math.max(0, Math.floor(keepNewest));
        if (over > 0) left -= excess.run({ limit: Math.min(over, left) }).changes;
      }
      return Math.max(0, Math.floor(limit)) - left;
    }),
  };
}
