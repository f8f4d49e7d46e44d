import { LATENCY_BIN_COLUMNS, LATENCY_BIN_COUNT, latencyBinOf } from './latency-bins';
import type { SqliteDatabase } from './open-database';
import { SERIES_TABLES } from './tool-series-triggers';

/** What the series keep of a call that just finished: the columns as they are stored. */
export interface FinishedCall {
  tool: string;
  status: string;
  finishedAt: number;
  /** Execution only: the call's wait for approval is not in it (see `executionMs`). */
  latencyMs: number | null;
}

/** What a batch adds to one (tool, bucket) row: `sums` holds calls, failures, then the bins. */
interface BucketIncrements {
  tool: string;
  bucket: number;
  sums: number[];
}

/** The bin of a stored latency as `latencyBinSql` sees it: -1 (no bin) for NULL. */
function binOf(latencyMs: number | null): number {
  // SQLite stores a NaN as NULL, so it too is counted in no bin.
  return latencyMs === null || Number.isNaN(latencyMs) ? -1 : latencyBinOf(latencyMs);
}

/** The bucket SQLite computes (`finished_at - finished_at % size`): `%` truncates to integers. */
function bucketOf(finishedAt: number, bucketMs: number): number {
  return finishedAt - (Math.trunc(finishedAt) % bucketMs);
}

/** Sums the calls of one series table per (tool, bucket). */
function tally(calls: readonly FinishedCall[], bucketMs: number): Map<string, BucketIncrements> {
  const rows = new Map<string, BucketIncrements>();
  for (const call of calls) {
    const bucket = bucketOf(call.finishedAt, bucketMs);
    const key = `${bucket}\u0000${call.tool}`;
    let row = rows.get(key);
    if (row === undefined) {
      row = { tool: call.tool, bucket, sums: new Array<number>(2 + LATENCY_BIN_COUNT).fill(0) };
      rows.set(key, row);
    }
    const { sums } = row;
    sums[0] = (sums[0] ?? 0) + 1;
    if (call.status === 'failed') sums[1] = (sums[1] ?? 0) + 1;
    const bin = binOf(call.latencyMs);
    if (bin >= 0) sums[2 + bin] = (sums[2 + bin] ?? 0) + 1;
  }
  return rows;
}

/** Adds a row's increments to its bucket of `table`, creating the bucket if needed. */
export function addIncrementsSql(table: string): string {
  const columns = ['calls', 'failures', ...LATENCY_BIN_COLUMNS];
  return `INSERT INTO ${table} (tool, bucket, ${columns.join(', ')})
    VALUES (${['?', '?', ...columns.map(() => '?')].join(', ')})
    ON CONFLICT (tool, bucket) DO UPDATE SET ${columns.map((c) => `${c} = ${c} + excluded.${c}`).join(', ')}`;
}

/**
 * Builds the function that adds calls that just finished to the per-minute and per-hour series:
 * one upsert per distinct (table, tool, bucket), however many calls share it. The caller runs it
 * in the transaction that wrote the calls, so a rolled-back commit adds nothing — the triggers
 * of migration 0004 no longer count a call finishing (see `toolSeriesInStoreSql`).
 * @example const addToToolSeries = createAddToToolSeries(sqlite); addToToolSeries(finishedNow);
 */
export function createAddToToolSeries(sqlite: SqliteDatabase): (calls: readonly FinishedCall[]) => void {
  const upserts = SERIES_TABLES.map(({ table, bucketMs }) => ({
    bucketMs,
    upsert: sqlite.prepare(addIncrementsSql(table)),
  }));
  return (calls) => {
    if (calls.length === 0) return;
    for (const { bucketMs, upsert } of upserts)
      for (const { tool, bucket, sums } of tally(calls, bucketMs).values()) upsert.run(tool, bucket, ...sums);
  };
}
