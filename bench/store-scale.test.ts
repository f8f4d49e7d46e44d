import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../lib/db/open-database';
import { createSqliteTraceStore } from '../lib/db/sqlite-trace-store';
import { createVault } from '../lib/db/vault';
import { measurePersistedThroughput, measureStoreAtScale } from './store-scale';
import { ensureSeeded, seedCall, seedStore } from './store-seed';

const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-store-scale-'));
afterAll(() => fs.rmSync(temp, { recursive: true, force: true }));

describe('the store at scale (bench/store-scale.ts)', () => {
  it('seeds calls the store reads back as written, with aggregates equal to grouping them', () => {
    const dir = path.join(temp, 'seeded');
    const calls = 3_000;
    seedStore({ dir, calls });
    const db = openDatabase(path.join(dir, 'toolscope.db'));
    const store = createSqliteTraceStore({ db, vault: createVault({ dir }) });
    try {
      expect(db.prepare('SELECT count(*) FROM tool_calls').pluck().get()).toBe(calls);
      expect(db.prepare('SELECT indexed_upto FROM search_state').pluck().get()).toBe(calls);
      const grouped = db.prepare('SELECT tool, count(*) FROM tool_calls GROUP BY tool ORDER BY tool').raw().all();
      expect(db.prepare('SELECT tool, calls FROM tool_counts ORDER BY tool').raw().all()).toEqual(grouped);
      const sessions = db.prepare('SELECT count(DISTINCT session_id) FROM tool_calls').pluck().get();
      expect(db.prepare('SELECT count(*), sum(calls) FROM sessions').raw().get()).toEqual([sessions, calls]);
      // Every call reads back as the generator made it, its raw arguments too (sealed or not).
      for (const i of [0, 1, 17, 1_234, calls - 1]) {
        const { sessionSeq, ...call } = seedCall(i, calls);
        const { rawArguments, rawEditedArguments, ...stored } = call;
        expect(store.get(call.id)).toEqual({ ...stored, sessionSeq });
        expect(store.openSealedArguments(call.id)).toEqual({ rawArguments, rawEditedArguments });
      }
      expect(store.list({ status: 'running' }).items).toHaveLength(20);
      // The search index holds every call: an id deep down is found, and equally by a LIKE scan.
      const old = seedCall(3, calls);
      expect(store.list({ text: old.toolCallId.toUpperCase() }).items.map((item) => item.id)).toEqual([old.id]);
    } finally {
      store.close();
    }
  });

  it('reuses a seeded folder while the migrations and the generator are unchanged', () => {
    process.env.TOOLSCOPE_BENCH_DATA_DIR = path.join(temp, 'cached');
    try {
      const first = ensureSeeded({ calls: 500 });
      expect(first.cached).toBe(false);
      const again = ensureSeeded({ calls: 500 });
      expect(again).toEqual({ ...first, cached: true });
      expect(ensureSeeded({ calls: 600 }).cached).toBe(false);
    } finally {
      delete process.env.TOOLSCOPE_BENCH_DATA_DIR;
    }
  });

  it('reports every page, the searches and the bytes per call, in the shape the bench prints', async () => {
    process.env.TOOLSCOPE_BENCH_DATA_DIR = path.join(temp, 'report');
    try {
      const report = await measureStoreAtScale({ calls: 2_000, progress: () => {} });
      expect(report.calls).toBe(2_000);
      expect(report.bytesPerCall).toBe((report.dbBytes + report.walBytes) / 2_000);
      expect(report.pages.map((page) => page.name)).toContain('trace view');
      for (const page of report.pages) expect(page.p99Ms).toBeGreaterThanOrEqual(page.p50Ms);
      expect(report.search.find((search) => search.query === 'no such text anywhere')?.matches).toBe(0);
      expect(
        report.search.find((search) => search.query.startsWith('call_') || search.query.startsWith('toolu_'))?.matches,
      ).toBe(1);
    } finally {
      delete process.env.TOOLSCOPE_BENCH_DATA_DIR;
    }
  }, 60_000);

  it('counts persisted calls until the last one is committed', async () => {
    const result = await measurePersistedThroughput({ calls: 2_000, inFlight: 50 });
    expect(result.callsPerSecond).toBeGreaterThan(0);
    expect(result.p50Us).toBeGreaterThan(0);
    expect(result.notes.join(' ')).toContain('committed');
  }, 60_000);
});
