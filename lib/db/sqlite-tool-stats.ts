import type { SqliteDatabase } from './open-database';
import { percentile } from './percentile';
import type { ToolStats } from './trace-store';

/** The statements behind `toolStats`; exported for the query-plan tests. */
export const TOOL_STATS_SQL = {
  totals: `SELECT tool, calls, failures, last_called_at AS lastCalledAt FROM tool_counts WHERE calls > 0 ORDER BY tool`,
  latencies: `SELECT latency_ms FROM tool_calls INDEXED BY tool_calls_tool_seq_idx
    WHERE tool = ? AND latency_ms IS NOT NULL ORDER BY seq DESC LIMIT ?`,
} as const;

/**
 * Builds the SQLite `toolStats`. The totals come from `tool_counts`, which triggers keep (so a
 * page view costs microseconds, not a count of every call); the latency window walks each
 * tool's (tool, seq) index backwards for `window` rows, pinned with `INDEXED BY`. Reads in one
 * transaction so the numbers agree with each other.
 */
export function createSqliteToolStats(sqlite: SqliteDatabase): (window?: number) => ToolStats[] {
  const totals = sqlite.prepare(TOOL_STATS_SQL.totals);
  const latencies = sqlite.prepare(TOOL_STATS_SQL.latencies).pluck();

  const read = sqlite.transaction((size: number): ToolStats[] => {
    const rows = totals.all() as { tool: string; calls: number; failures: number; lastCalledAt: number | null }[];
    return rows.map((row) => {
      const window = (latencies.all(row.tool, size) as number[]).sort((a, b) => a - b);
      return {
        ...row,
        p50LatencyMs: percentile(window, 50),
        p95LatencyMs: percentile(window, 95),
      };
    });
  });

  return (window = 1000) => read(Math.max(1, Math.floor(window)));
}
