import type { SqliteDatabase } from './open-database';
import { percentile } from './percentile';
import type { ToolStats } from './trace-store';

/** The statements behind `toolStats`; exported for the query-plan tests. */
export const TOOL_STATS_SQL = {
  totals: `SELECT tool, count(*) AS calls, max(seq) AS lastSeq FROM tool_calls INDEXED BY tool_calls_tool_seq_idx
    GROUP BY tool ORDER BY tool`,
  failures: `SELECT tool, count(*) AS failures FROM tool_calls INDEXED BY tool_calls_failed_tool_idx
    WHERE status = 'failed' GROUP BY tool`,
  createdAt: 'SELECT created_at FROM tool_calls WHERE seq = ?',
  latencies: `SELECT latency_ms FROM tool_calls INDEXED BY tool_calls_tool_seq_idx
    WHERE tool = ? AND latency_ms IS NOT NULL ORDER BY seq DESC LIMIT ?`,
} as const;

/**
 * Builds the SQLite `toolStats`. Each statement reads one index and no table rows, except the
 * latency window: (tool, seq) covers the call counts and each tool's newest call, the partial
 * index on failed calls covers the failures, and the window walks (tool, seq) backwards for
 * `window` rows. `INDEXED BY` pins those plans (without statistics SQLite would rather group
 * the failures through the status index and a temporary B-tree: 30x slower at a million rows).
 * Reads in one transaction so the numbers agree with each other.
 */
export function createSqliteToolStats(sqlite: SqliteDatabase): (window?: number) => ToolStats[] {
  const totals = sqlite.prepare(TOOL_STATS_SQL.totals);
  const failures = sqlite.prepare(TOOL_STATS_SQL.failures);
  const createdAt = sqlite.prepare(TOOL_STATS_SQL.createdAt).pluck();
  const latencies = sqlite.prepare(TOOL_STATS_SQL.latencies).pluck();

  const read = sqlite.transaction((size: number): ToolStats[] => {
    const failed = new Map(
      (failures.all() as { tool: string; failures: number }[]).map((row) => [row.tool, row.failures]),
    );
    return (totals.all() as { tool: string; calls: number; lastSeq: number }[]).map((row) => {
      const window = (latencies.all(row.tool, size) as number[]).sort((a, b) => a - b);
      return {
        tool: row.tool,
        calls: row.calls,
        failures: failed.get(row.tool) ?? 0,
        p50LatencyMs: percentile(window, 50),
        p95LatencyMs: percentile(window, 95),
        lastCalledAt: (createdAt.get(row.lastSeq) as number | undefined) ?? null,
      };
    });
  });

  return (window = 1000) => read(Math.max(1, Math.floor(window)));
}
