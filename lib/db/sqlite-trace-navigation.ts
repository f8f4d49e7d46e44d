import type { SqliteDatabase } from './open-database';
import { idTextSql, storedIdForms } from './trace-id';
import type { AdjacentTraces } from './trace-store';

/** The statements behind `tools` and `adjacent`; exported for the query-plan tests. */
export const TRACE_NAVIGATION_SQL = {
  // tool_counts holds one row per tool ever seen; a tool whose calls were all deleted has 0.
  tools: 'SELECT tool FROM tool_counts WHERE calls > 0 ORDER BY tool',
  newer: `SELECT ${idTextSql('id')} FROM tool_calls WHERE seq > (SELECT seq FROM tool_calls WHERE id IN (@id, @idText))
    ORDER BY seq LIMIT 1`,
  older: `SELECT ${idTextSql('id')} FROM tool_calls WHERE seq < (SELECT seq FROM tool_calls WHERE id IN (@id, @idText))
    ORDER BY seq DESC LIMIT 1`,
} as const;

/**
 * Builds the SQLite `tools` and `adjacent`. Both read an index and stop: the tool names come from
 * the trigger-kept `tool_counts` (not a DISTINCT over every call), the neighbours are one step
 * along the primary key from the call's seq, found through the id index.
 */
export function createSqliteTraceNavigation(sqlite: SqliteDatabase) {
  const tools = sqlite.prepare(TRACE_NAVIGATION_SQL.tools).pluck();
  const newer = sqlite.prepare(TRACE_NAVIGATION_SQL.newer).pluck();
  const older = sqlite.prepare(TRACE_NAVIGATION_SQL.older).pluck();
  return {
    tools: () => tools.all() as string[],
    adjacent: sqlite.transaction(
      (id: string): AdjacentTraces => ({
        newer: (newer.get(storedIdForms(id)) as string | undefined) ?? null,
        older: (older.get(storedIdForms(id)) as string | undefined) ?? null,
      }),
    ),
  };
}
