import { estimatePercentile, LATENCY_BIN_COLUMNS } from './latency-bins';
import type { SqliteDatabase } from './open-database';

/** The time ranges the charts offer. */
export const SERIES_RANGES = ['hour', 'day', 'week'] as const;
export type SeriesRange = (typeof SERIES_RANGES)[number];

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * How each range is read: which table, how wide a point is, how many points. A day of minutes
 * is drawn in 15-minute points (96 bars read better than 1,440 and a p95 of one minute's few
 * calls is mostly noise); a week reads the hourly table.
 */
export const RANGE_PLAN = {
  hour: { table: 'tool_series_minutes', bucketMs: MINUTE, points: 60 },
  day: { table: 'tool_series_minutes', bucketMs: 15 * MINUTE, points: 96 },
  week: { table: 'tool_series_hours', bucketMs: HOUR, points: 168 },
} as const satisfies Record<SeriesRange, { table: string; bucketMs: number; points: number }>;

/** One point of a chart: calls that finished in [t, t + bucketMs). */
export interface SeriesPoint {
  /** Epoch ms of the bucket's start. */
  t: number;
  calls: number;
  failures: number;
  /** Estimated from the latency histogram; null when no call of the bucket had a latency. */
  p50Ms: number | null;
  p95Ms: number | null;
}

/** Totals over a whole range, from the merged histogram: what the chart's text summary says. */
export interface SeriesSummary {
  calls: number;
  failures: number;
  p50Ms: number | null;
  p95Ms: number | null;
}

export interface Series {
  range: SeriesRange;
  bucketMs: number;
  /** Oldest first, one per bucket, empty buckets as zeros: the last one is the current bucket. */
  points: SeriesPoint[];
  summary: SeriesSummary;
}

export interface SeriesQuery {
  /** One tool; all tools together when left out. */
  tool?: string;
  range: SeriesRange;
  /** Epoch ms: the range ends with the bucket holding `now`. */
  now: number;
}

export interface ToolSeries {
  series(query: SeriesQuery): Series;
  /** Every tool with calls in the range, each with its own series, sorted by name. */
  seriesByTool(query: Omit<SeriesQuery, 'tool'>): {
    range: SeriesRange;
    bucketMs: number;
    tools: (Series & { tool: string })[];
  };
  /** True when the store ever recorded a call of `tool` (its per-tool totals have a row). */
  hasSeen(tool: string): boolean;
  /** Epoch ms of each seen tool's newest call start (from the per-tool totals). */
  lastCalledAt(): Map<string, number>;
  /**
   * Deletes series rows of buckets that ended at or before `before` (hourly rows) and
   * `minutesBefore` (minute rows, which only the hour and day charts read; defaults to `before`).
   * Returns the rows deleted. Deleting calls keeps the series right without it; this bounds them.
   */
  prune(before: number, minutesBefore?: number): number;
}

const binSums = LATENCY_BIN_COLUMNS.map((c) => `sum(${c}) AS ${c}`).join(', ');

/** The statements behind the series; exported for the query-plan tests. */
export function toolSeriesSql(table: string) {
  // better-sqlite3 binds JS numbers as REAL: without the CAST, `i` would be a fraction.
  const select = `CAST((bucket - @from) / @size AS INTEGER) AS i, sum(calls) AS calls, sum(failures) AS failures, ${binSums}`;
  return {
    // Pinned: with statistics SQLite could prefer the bucket index and read every tool's rows.
    oneTool: `SELECT ${select} FROM ${table} INDEXED BY ${table}_tool_bucket_idx
      WHERE tool = @tool AND bucket >= @from AND bucket < @to GROUP BY i`,
    byTool: `SELECT tool, ${select} FROM ${table} INDEXED BY ${table}_bucket_idx
      WHERE bucket >= @from AND bucket < @to GROUP BY tool, i`,
    prune: `DELETE FROM ${table} WHERE bucket <= @before - @size`,
  };
}

export const SEEN_SQL = 'SELECT 1 FROM tool_counts WHERE tool = ?';
const LAST_CALLED_SQL = 'SELECT tool, last_called_at AS at FROM tool_counts WHERE last_called_at IS NOT NULL';

type BinRow = { i: number; calls: number; failures: number } & Record<string, number>;

/** Sums rows into `points` (zeros where no row), and the whole range into one summary. */
function toSeries(range: SeriesRange, from: number, rows: BinRow[]): Series {
  const { bucketMs, points: count } = RANGE_PLAN[range];
  const byIndex = new Map(rows.map((row) => [row.i, row]));
  const total = new Array<number>(LATENCY_BIN_COLUMNS.length).fill(0);
  let calls = 0;
  let failures = 0;
  const points: SeriesPoint[] = [];
  for (let i = 0; i < count; i++) {
    const row = byIndex.get(i);
    const bins = LATENCY_BIN_COLUMNS.map((c) => row?.[c] ?? 0);
    bins.forEach((n, b) => {
      total[b] = (total[b] ?? 0) + n;
    });
    calls += row?.calls ?? 0;
    failures += row?.failures ?? 0;
    points.push({
      t: from + i * bucketMs,
      calls: row?.calls ?? 0,
      failures: row?.failures ?? 0,
      p50Ms: estimatePercentile(bins, 50),
      p95Ms: estimatePercentile(bins, 95),
    });
  }
  return {
    range,
    bucketMs,
    points,
    summary: { calls, failures, p50Ms: estimatePercentile(total, 50), p95Ms: estimatePercentile(total, 95) },
  };
}

/**
 * Reads the per-tool series that the store and the `tool_series` triggers keep (see `schema.ts`): a chart
 * costs one indexed range read of at most a few hundred aggregate rows per tool, whatever the
 * number of calls. `beforeRead` lets the trace store write its queued calls first (calls begun
 * without a side effect, and finishes not yet committed at the end of the turn), so a chart
 * never misses a call that is running or answered.
 * @example createSqliteToolSeries(db).series({ tool: 'calculator', range: 'hour', now: Date.now() })
 */
export function createSqliteToolSeries(db: SqliteDatabase, options: { beforeRead?: () => void } = {}): ToolSeries {
  const statements = Object.fromEntries(
    Object.entries(RANGE_PLAN).map(([range, plan]) => {
      const sql = toolSeriesSql(plan.table);
      return [range, { oneTool: db.prepare(sql.oneTool), byTool: db.prepare(sql.byTool) }];
    }),
  ) as Record<
    SeriesRange,
    { oneTool: ReturnType<SqliteDatabase['prepare']>; byTool: ReturnType<SqliteDatabase['prepare']> }
  >;
  const pruneMinutes = db.prepare(toolSeriesSql('tool_series_minutes').prune);
  const pruneHours = db.prepare(toolSeriesSql('tool_series_hours').prune);
  const seen = db.prepare(SEEN_SQL).pluck();
  // What changed the data since: commits of other connections, then rows this one changed.
  const version = db.prepare("SELECT (SELECT data_version FROM pragma_data_version) || ':' || total_changes()").pluck();
  let lastByTool: { key: string; rows: (BinRow & { tool: string })[] } | null = null;

  /**
   * Every tool's rows of a range. The tools page asks for all tools and for each tool in turn,
   * the same rows twice: the second read is served from the first while nothing changed.
   */
  function byToolRows(range: SeriesRange, params: ReturnType<typeof window>) {
    const key = `${range}:${params.from}:${params.to}:${version.get()}`;
    if (lastByTool?.key !== key) {
      lastByTool = { key, rows: statements[range].byTool.all(params) as (BinRow & { tool: string })[] };
    }
    return lastByTool.rows;
  }
  const lastCalled = db.prepare(LAST_CALLED_SQL);

  function window(range: SeriesRange, now: number) {
    const { bucketMs, points } = RANGE_PLAN[range];
    const to = now - (now % bucketMs) + bucketMs;
    return { from: to - points * bucketMs, to, size: bucketMs };
  }

  return {
    series({ tool, range, now }) {
      options.beforeRead?.();
      const params = window(range, now);
      if (tool !== undefined) {
        return toSeries(range, params.from, statements[range].oneTool.all({ ...params, tool }) as BinRow[]);
      }
      // All tools: add up the per-tool sums of each bucket.
      const sums = new Map<number, BinRow>();
      for (const row of byToolRows(range, params)) {
        const sum = sums.get(row.i);
        if (!sum) {
          const { tool: _tool, ...rest } = row;
          sums.set(row.i, rest as BinRow);
          continue;
        }
        for (const key of ['calls', 'failures', ...LATENCY_BIN_COLUMNS]) sum[key] = (sum[key] ?? 0) + (row[key] ?? 0);
      }
      return toSeries(range, params.from, [...sums.values()]);
    },

    seriesByTool({ range, now }) {
      options.beforeRead?.();
      const params = window(range, now);
      const byTool = new Map<string, BinRow[]>();
      for (const row of byToolRows(range, params)) {
        const rows = byTool.get(row.tool) ?? [];
        rows.push(row);
        byTool.set(row.tool, rows);
      }
      const tools = [...byTool.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([tool, rows]) => ({ tool, ...toSeries(range, params.from, rows) }))
        // A deleted call leaves its bucket's row at zero: a tool with nothing left is not listed.
        .filter((series) => series.summary.calls > 0);
      return { range, bucketMs: RANGE_PLAN[range].bucketMs, tools };
    },

    hasSeen(tool) {
      return seen.get(tool) !== undefined;
    },

    lastCalledAt() {
      options.beforeRead?.();
      return new Map((lastCalled.all() as { tool: string; at: number }[]).map((row) => [row.tool, row.at]));
    },

    prune(before, minutesBefore = before) {
      return (
        pruneHours.run({ before, size: HOUR }).changes +
        pruneMinutes.run({ before: minutesBefore, size: MINUTE }).changes
      );
    },
  };
}
