import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TraceRecord } from '../executor/types';
import { latencyBinOf } from './latency-bins';
import { migrate } from './migrate';
import { openDatabase, type SqliteDatabase } from './open-database';
import { percentile } from './percentile';
import { createSqliteToolSeries, RANGE_PLAN, SEEN_SQL, type ToolSeries, toolSeriesSql } from './sqlite-tool-series';
import { createSqliteTraceStore } from './sqlite-trace-store';
import { createTempDataDir, openTestDatabase } from './test-database';
import { openDatabaseBefore, seriesVsCalls, writeRowDirectly } from './testing/tool-series-check';
import {
  addCallSql,
  removeCallSql,
  SERIES_TABLES,
  toolSeriesInStoreSql,
  toolSeriesTriggersSql,
} from './tool-series-triggers';
import { encodeTraceId } from './trace-id';
import type { TraceStore } from './trace-store';
import { makeTrace } from './trace-store-suite';
import { createVault } from './vault';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** A round hour, so bucket arithmetic in the tests reads plainly. */
const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);

const temp = createTempDataDir('toolscope-series-');
afterAll(() => temp.remove());

let count = 0;
let db: SqliteDatabase;
let store: TraceStore;
let series: ToolSeries;
beforeEach(() => {
  count += 1;
  const dir = path.join(temp.dir, `case-${count}`);
  db = openTestDatabase(dir);
  store = createSqliteTraceStore({ db, vault: createVault({ dir }) });
  series = createSqliteToolSeries(db, { beforeRead: () => store.flush() });
});
afterEach(() => store.close());

/** Records a call as the executor does: begin (running), then finish. */
function call(overrides: { tool?: string; finishedAt: number; latencyMs?: number | null; status?: 'failed' }) {
  const finishedAt = overrides.finishedAt;
  const latencyMs = overrides.latencyMs === undefined ? 5 : overrides.latencyMs;
  const trace = makeTrace({
    tool: overrides.tool ?? 'calculator',
    createdAt: finishedAt - (latencyMs ?? 0),
    finishedAt,
    latencyMs,
    ...(overrides.status ? { status: overrides.status } : {}),
  });
  store.begin({ ...trace, status: 'running', finishedAt: null, latencyMs: null });
  store.finish(trace);
  return trace;
}

const deleteCall = (trace: TraceRecord) =>
  db.prepare('DELETE FROM tool_calls WHERE id = ?').run(encodeTraceId(trace.id));
const nonEmpty = (s: { points: { t: number; calls: number; failures: number }[] }) =>
  s.points.filter((p) => p.calls > 0).map(({ t, calls, failures }) => ({ t, calls, failures }));

describe('tool series', () => {
  it('lays out each range as whole buckets ending with the one holding now, empty ones as zeros', () => {
    const now = T0 + 30 * MINUTE + 17_000;
    for (const range of ['hour', 'day', 'week'] as const) {
      const { bucketMs, points } = series.series({ range, now });
      expect(bucketMs).toBe(RANGE_PLAN[range].bucketMs);
      expect(points).toHaveLength(RANGE_PLAN[range].points);
      const last = points.at(-1)!;
      expect(last.t).toBeLessThanOrEqual(now);
      expect(last.t + bucketMs).toBeGreaterThan(now);
      expect(points.every((p, i) => i === 0 || p.t - points[i - 1]!.t === bucketMs)).toBe(true);
      expect(points.every((p) => p.calls === 0 && p.failures === 0 && p.p50Ms === null)).toBe(true);
    }
  });

  it('counts a call when it finishes, in the bucket of its finish, per tool and for all tools', () => {
    const running = makeTrace({ tool: 'calculator', status: 'running', finishedAt: null, latencyMs: null });
    store.begin(running);
    expect(series.series({ range: 'hour', now: T0 + 30 * MINUTE }).summary.calls).toBe(0);

    call({ finishedAt: T0 + 5 * MINUTE + 1 });
    call({ finishedAt: T0 + 5 * MINUTE + 59_999, status: 'failed' });
    call({ finishedAt: T0 + 20 * MINUTE });
    call({ tool: 'read_file', finishedAt: T0 + 20 * MINUTE + 5 });
    call({ finishedAt: T0 - 2 * HOUR }); // outside the hour and in the day

    const now = T0 + 30 * MINUTE;
    expect(nonEmpty(series.series({ tool: 'calculator', range: 'hour', now }))).toEqual([
      { t: T0 + 5 * MINUTE, calls: 2, failures: 1 },
      { t: T0 + 20 * MINUTE, calls: 1, failures: 0 },
    ]);
    expect(nonEmpty(series.series({ range: 'hour', now }))).toEqual([
      { t: T0 + 5 * MINUTE, calls: 2, failures: 1 },
      { t: T0 + 20 * MINUTE, calls: 2, failures: 0 },
    ]);
    expect(nonEmpty(series.series({ tool: 'calculator', range: 'day', now }))).toEqual([
      { t: T0 - 2 * HOUR, calls: 1, failures: 0 },
      { t: T0, calls: 2, failures: 1 },
      { t: T0 + 15 * MINUTE, calls: 1, failures: 0 },
    ]);
    expect(nonEmpty(series.series({ tool: 'calculator', range: 'week', now }))).toEqual([
      { t: T0 - 2 * HOUR, calls: 1, failures: 0 },
      { t: T0, calls: 3, failures: 1 },
    ]);
    expect(series.series({ tool: 'nope', range: 'week', now }).summary.calls).toBe(0);

    const byTool = series.seriesByTool({ range: 'day', now });
    expect(byTool.tools.map((t) => [t.tool, t.summary.calls, t.summary.failures])).toEqual([
      ['calculator', 4, 1],
      ['read_file', 1, 0],
    ]);
  });

  it('counts calls the store upserts finished, and calls marked interrupted', () => {
    store.finish(makeTrace({ finishedAt: T0 + 1000 })); // a rejected call: no begin
    store.begin(makeTrace({ status: 'running', finishedAt: null, latencyMs: null, createdAt: T0 }));
    store.markInterrupted(T0 + 2000);
    expect(series.series({ range: 'hour', now: T0 + 5000 }).summary.calls).toBe(2);
  });

  it('moves a call whose status or latency changes after it finished', () => {
    const trace = call({ finishedAt: T0 + 1000, status: 'failed', latencyMs: 3 });
    store.finish({ ...trace, status: 'succeeded', latencyMs: 300 });
    const { summary } = series.series({ range: 'hour', now: T0 + 5000 });
    expect(summary.calls).toBe(1);
    expect(summary.failures).toBe(0);
    expect(latencyBinOf(summary.p50Ms ?? 0)).toBe(latencyBinOf(300));
  });

  it('takes deleted calls out, so deleting traces and retention keep the counts right', () => {
    const a = call({ finishedAt: T0 + 1000, status: 'failed', latencyMs: 2 });
    const b = call({ finishedAt: T0 + 2000, latencyMs: 900 });
    const running = makeTrace({ status: 'running', finishedAt: null, latencyMs: null, createdAt: T0 });
    store.begin(running);
    store.flush();
    deleteCall(a);
    deleteCall(running);
    let { summary } = series.series({ tool: 'calculator', range: 'week', now: T0 + 5000 });
    expect(summary).toMatchObject({ calls: 1, failures: 0 });
    expect(latencyBinOf(summary.p95Ms ?? 0)).toBe(latencyBinOf(900));
    deleteCall(b);
    ({ summary } = series.series({ tool: 'calculator', range: 'hour', now: T0 + 5000 }));
    expect(summary).toEqual({ calls: 0, failures: 0, p50Ms: null, p95Ms: null });
    expect(series.seriesByTool({ range: 'hour', now: T0 + 5000 }).tools).toEqual([]);
    // Every bin back at zero, not only the totals.
    const left = db.prepare('SELECT * FROM tool_series_minutes').all() as Record<string, number>[];
    for (const row of left)
      for (const [key, value] of Object.entries(row)) if (key !== 'tool' && key !== 'bucket') expect(value).toBe(0);
  });

  it('estimates p50 and p95 from the histogram within the bin of the exact values', () => {
    const latencies = Array.from({ length: 200 }, (_, i) => 0.5 + i * i * 0.05); // 0.5 ms … ~2 s, skewed
    for (const [i, latencyMs] of latencies.entries()) call({ finishedAt: T0 + i * 100, latencyMs });
    const sorted = [...latencies].sort((a, b) => a - b);
    const { summary, points } = series.series({ tool: 'calculator', range: 'hour', now: T0 + 30_000 });
    expect(summary.calls).toBe(200);
    for (const [estimate, p] of [
      [summary.p50Ms, 50],
      [summary.p95Ms, 95],
    ] as const) {
      const exact = percentile(sorted, p)!;
      expect(latencyBinOf(estimate!), `p${p} estimate ${estimate} vs ${exact}`).toBe(latencyBinOf(exact));
    }
    // The point of the minute holds the same calls, so the same estimate.
    expect(points.at(-1)).toMatchObject({ calls: 200, p50Ms: summary.p50Ms, p95Ms: summary.p95Ms });
  });

  it('counts calls without a latency, but in no latency bin', () => {
    call({ finishedAt: T0 + 1000, latencyMs: null });
    expect(series.series({ range: 'hour', now: T0 + 1000 }).summary).toEqual({
      calls: 1,
      failures: 0,
      p50Ms: null,
      p95Ms: null,
    });
  });

  it('prunes old rows by bucket end, minute rows on their own cutoff', () => {
    call({ finishedAt: T0 - 3 * HOUR });
    call({ finishedAt: T0 - 30 * MINUTE });
    store.flush();
    const rows = (table: string) => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get();
    expect(series.prune(T0 - 3 * HOUR + MINUTE)).toBe(1); // the first call's minute ended; its hour did not
    expect(rows('tool_series_minutes')).toBe(1);
    expect(series.prune(T0 - 2 * HOUR, T0)).toBe(2);
    expect([rows('tool_series_hours'), rows('tool_series_minutes')]).toEqual([1, 0]);
  });

  it('knows the tools the store has seen', () => {
    expect(series.hasSeen('search_web')).toBe(false);
    call({ tool: 'search_web', finishedAt: T0 });
    store.flush();
    expect(series.hasSeen('search_web')).toBe(true);
    expect(series.lastCalledAt().get('search_web')).toBe(T0 - 5);
  });
});

describe('tool series migration', () => {
  it('holds exactly the SQL generated from the latency bins', () => {
    const migration = fs
      .readdirSync('drizzle')
      .filter((name) => name.endsWith('_tool_series.sql'))
      .map((name) => fs.readFileSync(path.join('drizzle', name), 'utf8'));
    expect(migration).toHaveLength(1);
    expect(migration[0]).toContain(toolSeriesTriggersSql());
  });

  it('backfills the calls recorded before it', () => {
    // Apply the migrations before this one, record calls as the store then did, then migrate the rest.
    const dir = path.join(temp.dir, 'backfill');
    const old = openDatabaseBefore(dir, '_tool_series');
    const vault = createVault({ dir });
    writeRowDirectly(old, vault, makeTrace({ finishedAt: T0 + 1000, latencyMs: 4 }));
    writeRowDirectly(old, vault, makeTrace({ finishedAt: T0 + 2000, latencyMs: 40, status: 'failed' }));
    writeRowDirectly(old, vault, makeTrace({ status: 'running', finishedAt: null, latencyMs: null }));
    expect(old.prepare(`SELECT count(*) FROM sqlite_master WHERE name = 'tool_series_minutes'`).pluck().get()).toBe(0);

    migrate(old);
    const backfilled = createSqliteToolSeries(old);
    for (const range of ['hour', 'week'] as const) {
      expect(nonEmpty(backfilled.series({ range, now: T0 + 5000 }))).toEqual([{ t: T0, calls: 2, failures: 1 }]);
    }
    old.close();
  });

  it('0004 holds exactly the SQL generated for it', () => {
    const migration = fs
      .readdirSync('drizzle')
      .filter((name) => name.endsWith('_tool_series_in_store.sql'))
      .map((name) => fs.readFileSync(path.join('drizzle', name), 'utf8'));
    expect(migration).toHaveLength(1);
    expect(migration[0]).toContain(toolSeriesInStoreSql());
  });

  it('0004 keeps the series of a database kept by the triggers of 0003, and the store carries on', () => {
    const dir = path.join(temp.dir, 'through-0003');
    const old = openDatabaseBefore(dir, '_tool_series_in_store');
    const vault = createVault({ dir });
    const write = (trace: TraceRecord) => writeRowDirectly(old, vault, trace);
    const unfinished = { status: 'running', finishedAt: null, latencyMs: null } as const;
    write(makeTrace({ finishedAt: T0 + 1000, latencyMs: 4 }));
    write(makeTrace({ tool: 'read_file', finishedAt: T0 + 2 * HOUR, latencyMs: 40, status: 'failed' }));
    write(makeTrace({ finishedAt: T0 + 3000, latencyMs: null }));
    const begunThenFinished = makeTrace({ finishedAt: T0 + MINUTE, latencyMs: 0.05 });
    write({ ...begunThenFinished, ...unfinished });
    write(begunThenFinished);
    const moved = makeTrace({ finishedAt: T0 + 4000, latencyMs: 3 });
    write(moved);
    write({ ...moved, status: 'failed', latencyMs: 3000, finishedAt: T0 + 5 * MINUTE });
    const deleted = makeTrace({ finishedAt: T0 + 5000 });
    write(deleted);
    old.prepare('DELETE FROM tool_calls WHERE id = ?').run(encodeTraceId(deleted.id));
    const stillRunning = makeTrace({ ...unfinished, createdAt: T0 });
    write(stillRunning);
    const everything = (table: string) => old.prepare(`SELECT * FROM ${table} ORDER BY tool, bucket`).all();
    const before = SERIES_TABLES.map(({ table }) => everything(table));
    const beforeCheck = seriesVsCalls(old);
    expect(beforeCheck.stored).toEqual(beforeCheck.grouped);

    migrate(old);
    const triggers = old.prepare(`SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'tool_series%'`);
    expect(triggers.pluck().all()).toEqual(
      expect.arrayContaining([
        'tool_series_after_update_remove',
        'tool_series_after_update_add',
        'tool_series_after_delete',
      ]),
    );
    expect(triggers.pluck().all()).not.toContain('tool_series_after_insert');
    expect(SERIES_TABLES.map(({ table }) => everything(table))).toEqual(before);

    // The store now counts what finishes: the call begun before the migration, and new ones.
    const store = createSqliteTraceStore({ db: old, vault });
    store.finish({ ...stillRunning, status: 'succeeded', finishedAt: T0 + 6000, latencyMs: 6000 });
    store.finish(makeTrace({ finishedAt: T0 + 7000, latencyMs: 7 }));
    store.finish({ ...moved, status: 'succeeded', latencyMs: 1 });
    store.flush();
    const after = seriesVsCalls(old);
    expect(after.stored).toEqual(after.grouped);
    expect(after.stored[0]?.reduce((sum, row) => sum + Number(row[2]), 0)).toBe(7);
    store.close();
  });
});

// Pinned plans, on a fresh database and after ANALYZE over skewed data, as in sqlite-query-plans.test.ts.
describe.each([
  ['without statistics', false],
  ['after ANALYZE', true],
])('tool series query plans %s', (_name, analyze) => {
  let plans: SqliteDatabase;
  beforeAll(() => {
    plans = openDatabase(':memory:');
    if (!analyze) return;
    const insert = plans.prepare('INSERT INTO tool_series_minutes (tool, bucket, calls) VALUES (?, ?, 1)');
    const insertHour = plans.prepare('INSERT OR IGNORE INTO tool_series_hours (tool, bucket, calls) VALUES (?, ?, 1)');
    plans.transaction(() => {
      for (let i = 0; i < 20_000; i++) {
        const tool = i % 10 === 0 ? `rare_${i % 7}` : 'busy';
        insert.run(tool, T0 + i * MINUTE);
        insertHour.run(tool, T0 + Math.floor(i / 60) * HOUR);
      }
    })();
    plans.exec('ANALYZE');
  });
  afterAll(() => plans.close());

  const planOf = (sql: string, values: unknown[] | Record<string, unknown> = {}) =>
    (plans.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(values) as { detail: string }[]).map((r) => r.detail).join(' | ');
  const window = { from: T0, to: T0 + HOUR, size: MINUTE, tool: 'busy', before: T0 };

  it.each(SERIES_TABLES.map((t) => t.table))('reads %s by an index range, never the calls', (table) => {
    const sql = toolSeriesSql(table);
    expect(planOf(sql.oneTool, window)).toMatch(
      new RegExp(`^SEARCH ${table} USING INDEX ${table}_tool_bucket_idx \\(tool=\\? AND bucket>\\? AND bucket<\\?\\)`),
    );
    expect(planOf(sql.byTool, window)).toMatch(
      new RegExp(`^SEARCH ${table} USING INDEX ${table}_bucket_idx \\(bucket>\\? AND bucket<\\?\\)`),
    );
    expect(planOf(sql.prune, window)).toMatch(
      new RegExp(`^SEARCH ${table} USING (COVERING )?INDEX ${table}_bucket_idx \\(bucket<\\?\\)$`),
    );
  });

  it.each(SERIES_TABLES)('finds the bucket a trigger updates by its unique index ($table)', ({ table, bucketMs }) => {
    // The trigger statements with OLD/NEW replaced by parameters, as SQLite plans them in the trigger.
    const asStatement = (sql: string) => sql.replace(/(?:NEW|OLD)\.`(\w+)`/g, '@$1');
    const values = { tool: 'busy', finished_at: T0, latency_ms: 3, status: 'failed' };
    expect(planOf(asStatement(removeCallSql(table, bucketMs)), values)).toMatch(
      new RegExp(`SEARCH ${table} USING INDEX ${table}_tool_bucket_idx \\(tool=\\? AND bucket=\\?\\)`),
    );
    expect(planOf(asStatement(addCallSql(table, bucketMs)), values)).not.toMatch(new RegExp(`SCAN ${table}\\b`));
  });

  it('checks whether a tool was seen by its primary key', () => {
    expect(planOf(SEEN_SQL, ['busy'])).toMatch(
      /^SEARCH tool_counts USING (COVERING )?INDEX sqlite_autoindex_tool_counts_1 \(tool=\?\)$/,
    );
  });
});

describe('every tool read twice for the tools page', () => {
  it('serves the second read from the first while nothing changed, and reads again after a write or a delete', () => {
    const first = call({ finishedAt: T0 + 5 * MINUTE });
    const now = T0 + 10 * MINUTE;
    expect(series.series({ range: 'day', now }).summary.calls).toBe(1);
    expect(series.seriesByTool({ range: 'day', now }).tools.map((s) => [s.tool, s.summary.calls])).toEqual([
      ['calculator', 1],
    ]);
    call({ tool: 'shell', finishedAt: T0 + 6 * MINUTE });
    expect(series.seriesByTool({ range: 'day', now }).tools.map((s) => [s.tool, s.summary.calls])).toEqual([
      ['calculator', 1],
      ['shell', 1],
    ]);
    expect(series.series({ range: 'day', now }).summary.calls).toBe(2);
    expect(store.delete(first.id)).toBe('deleted');
    expect(series.series({ range: 'day', now }).summary.calls).toBe(1);
    // Another connection's commit is seen too (both rows: a deleted call leaves its row at 0).
    const other = openDatabase(db.name);
    other.prepare('UPDATE tool_series_minutes SET calls = calls + 1').run();
    other.close();
    expect(series.series({ range: 'day', now }).summary.calls).toBe(3);
  });
});
