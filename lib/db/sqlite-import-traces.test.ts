import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TraceRecord } from '../executor/types';
import type { SqliteDatabase } from './open-database';
import { createSqliteTraceStore } from './sqlite-trace-store';
import { createTempDataDir, openTestDatabase } from './test-database';
import type { BatchMessage, StoredTrace, TraceStore } from './trace-store';
import { makeTrace, stored } from './trace-store-suite';
import { createVault } from './vault';

/**
 * Imports written a chunk at a time (`TraceStore.beginImport`, `sqlite-import-traces.ts`) on a
 * real SQLite file: each chunk a transaction, the whole kept only once committed — given up, or
 * cut short by a stop of the process, an import leaves nothing behind.
 */
const temp = createTempDataDir('toolscope-import-writer-');
afterAll(() => temp.remove());
let count = 0;

function open(dir = path.join(temp.dir, `db-${++count}`)): { dir: string; db: SqliteDatabase; store: TraceStore } {
  const db = openTestDatabase(dir);
  return { dir, db, store: createSqliteTraceStore({ db, vault: createVault({ dir }) }) };
}

const importedTrace = (overrides: Partial<TraceRecord> = {}, sessionSeq = 1): StoredTrace => ({
  ...stored(makeTrace({ sessionId: 'imported', ...overrides }), sessionSeq),
  sessionSeq,
});
const file = (n: number, overrides: Partial<TraceRecord> = {}) =>
  Array.from({ length: n }, (_, i) => importedTrace({ batchId: `batch-${i % 3}`, ...overrides }, i + 1));
const messages = (traces: StoredTrace[]): BatchMessage[] =>
  [...new Set(traces.map((trace) => trace.batchId as string))].map((batchId) => ({
    batchId,
    sessionId: 'imported',
    createdAt: 1,
    message: { text: `why ${batchId}`, model: null, truncated: false },
  }));

/** What an import leaves in the database: its calls, messages, counts, series and bookkeeping. */
function footprint(db: SqliteDatabase) {
  const one = (sql: string) => db.prepare(sql).pluck().get();
  return {
    imported: one('SELECT count(*) FROM tool_calls WHERE imported = 1'),
    local: one('SELECT count(*) FROM tool_calls WHERE imported = 0'),
    batches: one('SELECT count(*) FROM batches'),
    counted: one('SELECT coalesce(sum(calls), 0) FROM tool_counts'),
    series: one('SELECT coalesce(sum(calls), 0) FROM tool_series_minutes'),
    sessionCalls: one("SELECT coalesce(sum(calls), 0) FROM sessions WHERE id = 'imported'"),
    journal: one('SELECT (SELECT count(*) FROM imports) + (SELECT count(*) FROM import_rows)'),
  };
}

/** Writes `traces` one per chunk (budget 0), calling `each` after every chunk. */
function writeAll(store: TraceStore, traces: StoredTrace[], each: (written: number) => void = () => {}) {
  const writer = store.beginImport?.();
  if (!writer) throw new Error('the SQLite store writes imports in chunks');
  for (let from = 0; from < traces.length; ) {
    const step = writer.write(traces, from, 0);
    if (!step.ok) throw new Error(`stored already: ${step.exists}`);
    expect(step.written).toBe(1);
    from += step.written;
    each(from);
  }
  return writer;
}

describe('an import written a chunk at a time', () => {
  it('commits each chunk on its own, keeps the whole once committed, and drops its bookkeeping', () => {
    const { db, store } = open();
    const traces = file(7);
    const seen: number[] = [];
    const writer = writeAll(store, traces, () => seen.push(footprint(db).imported as number));
    // Each chunk is its own transaction: readable (by another connection too) as it is written.
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
    const all = messages(traces);
    for (let from = 0; from < all.length; ) from += writer.writeMessages(all, from, 0);
    writer.commit();
    while (!writer.tidy(2));
    expect(footprint(db)).toEqual({
      imported: 7,
      local: 0,
      batches: 3,
      counted: 7,
      series: 7,
      sessionCalls: 7,
      journal: 0,
    });
    expect(store.get(traces[6]?.id ?? '')).toEqual({ ...traces[6], imported: true });
    expect(store.assistantMessages(['batch-1']).get('batch-1')?.text).toBe('why batch-1');
    store.close();
  });

  it('writes a chunk until its time budget is spent, one trace at least', () => {
    const { store } = open();
    const traces = file(50);
    const writer = store.beginImport?.();
    expect(writer?.write(traces, 0, 0)).toEqual({ ok: true, written: 1 });
    expect(writer?.write(traces, 1, 60_000)).toEqual({ ok: true, written: 49 });
    writer?.commit();
    store.close();
  });

  it('refuses a chunk holding a stored id, writing nothing of it; discarded, the import leaves nothing', async () => {
    const { db, store } = open();
    const local = makeTrace({ sessionId: 'here' });
    store.begin(local);
    await store.finish(local);
    const before = footprint(db);
    const traces = file(6);
    const writer = writeAll(store, traces.slice(0, 4));
    const all = messages(traces);
    for (let from = 0; from < all.length; ) from += writer.writeMessages(all, from, 0);
    expect(writer.firstStored([traces[5]?.id ?? '', local.id])).toBe(local.id);
    const clash = [traces[4] as StoredTrace, { ...(traces[5] as StoredTrace), id: local.id }];
    expect(writer.write(clash, 0, 60_000)).toEqual({ ok: false, exists: local.id });
    expect(store.get(traces[4]?.id ?? '')).toBeNull();
    expect(footprint(db).imported).toBe(4);
    while (!writer.discard(3));
    expect(footprint(db)).toEqual(before);
    expect(store.get(local.id)?.imported).toBeUndefined();
    expect(store.listSessions().items.map((session) => [session.id, session.calls])).toEqual([['here', 1]]);
    expect(() => writer.commit()).toThrow(/discarded/);
    store.close();
  });

  it('cut short by a stop of the process, it is taken out when the store next starts; completed imports and local calls stay', async () => {
    const first = open();
    const local = makeTrace({ sessionId: 'here' });
    first.store.begin(local);
    await first.store.finish(local);
    const done = file(3);
    const completed = writeAll(first.store, done);
    completed.writeMessages(messages(done), 0, 60_000);
    completed.commit();
    // A committed import whose bookkeeping was not dropped yet when the process stopped.
    const cut = file(5, { sessionId: 'cut', batchId: 'cut-batch' });
    const unfinished = writeAll(first.store, cut.slice(0, 3));
    unfinished.writeMessages(messages(cut), 0, 60_000);
    expect(footprint(first.db)).toMatchObject({ imported: 6, batches: 4 });
    // No commit, no discard: the store closes as a SIGKILL leaves the file.
    first.store.close();

    const again = open(first.dir);
    expect(again.store.markInterrupted(Date.now())).toBe(0);
    expect(footprint(again.db)).toEqual({
      imported: 3,
      local: 1,
      batches: 3,
      counted: 4,
      series: 4,
      sessionCalls: 3,
      journal: 0,
    });
    expect(again.store.get(cut[0]?.id ?? '')).toBeNull();
    expect(again.store.getSession('cut')).toBeNull();
    for (const trace of done) expect(again.store.get(trace.id)?.imported).toBe(true);
    // And the file imports whole now.
    const retry = writeAll(again.store, cut);
    retry.commit();
    expect(footprint(again.db).imported).toBe(8);
    again.store.close();
  });
});
