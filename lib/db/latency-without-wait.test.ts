import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LATENCY_BIN_COLUMNS, latencyBinOf } from './latency-bins';
import { openDatabase } from './open-database';
import { createSqliteTraceStore } from './sqlite-trace-store';
import { createTempDataDir } from './test-database';
import { makeTrace } from './trace-store-suite';
import { createVault } from './vault';

const MIGRATION = '0019_latency_without_wait';

let temp: ReturnType<typeof createTempDataDir>;
beforeEach(() => {
  temp = createTempDataDir('toolscope-0019-');
});
afterEach(() => temp.remove());

/** The migrations folder as it was before 0019: every other entry of the journal, and its SQL. */
function migrationsBefore(): string {
  const folder = path.join(temp.dir, 'migrations-before');
  fs.mkdirSync(path.join(folder, 'meta'), { recursive: true });
  const journal = JSON.parse(fs.readFileSync('drizzle/meta/_journal.json', 'utf8'));
  const entries = (journal.entries as { tag: string }[]).filter((entry) => entry.tag !== MIGRATION);
  fs.writeFileSync(path.join(folder, 'meta', '_journal.json'), JSON.stringify({ ...journal, entries }));
  for (const { tag } of entries) fs.copyFileSync(`drizzle/${tag}.sql`, path.join(folder, `${tag}.sql`));
  return folder;
}

const base = Date.UTC(2026, 4, 4, 12);
const approval = (requestedAt: number, decidedAt: number | null) => ({
  rule: 'default for write: ask',
  requestedAt,
  expiresAt: null,
  decision: decidedAt === null ? null : ('approved' as const),
  by: decidedAt === null ? null : 'rev',
  decidedAt,
  reason: null,
  ruleCreated: null,
});

describe(`migration ${MIGRATION}`, () => {
  it('takes the decided approval wait out of the latency of calls recorded before, and moves them in the series', () => {
    const file = path.join(temp.dir, 'toolscope.db');
    const old = openDatabase(file, { migrationsFolder: migrationsBefore() });
    const store = createSqliteTraceStore({ db: old, vault: createVault({ dir: temp.dir }) });
    // As recorded before: latency from arrival to answer, the 52.2 s wait included.
    const waited = makeTrace({
      tool: 'http_request',
      createdAt: base,
      finishedAt: base + 52_203,
      latencyMs: 52_203.25,
      approval: approval(base + 1, base + 52_201),
    });
    const plain = makeTrace({ tool: 'http_request', createdAt: base + 10, finishedAt: base + 15, latencyMs: 5.5 });
    // Taken up after a restart: most of its wait was before this process, outside its latency.
    const resumed = makeTrace({
      tool: 'write_file',
      createdAt: base,
      finishedAt: base + 30,
      latencyMs: 30,
      approval: approval(base, base + 3_600_000),
    });
    const undecided = makeTrace({
      tool: 'write_file',
      status: 'interrupted',
      createdAt: base,
      finishedAt: base + 40,
      latencyMs: 40,
      approval: approval(base + 1, null),
    });
    for (const trace of [waited, plain, resumed, undecided]) store.finish(trace);
    store.close();

    const db = openDatabase(file);
    const latency = (id: string) => db.prepare('SELECT latency_ms FROM tool_calls WHERE id = ?').pluck().get(id);
    expect(latency(waited.id)).toBe(3.25);
    expect(latency(plain.id)).toBe(5.5);
    expect(latency(resumed.id)).toBe(0);
    expect(latency(undecided.id)).toBe(40);
    // The finish times stay: arrival to answer is still finished_at - created_at.
    expect(db.prepare('SELECT finished_at FROM tool_calls WHERE id = ?').pluck().get(waited.id)).toBe(base + 52_203);

    // Each series holds the calls in the bins of their new latencies, nothing left in the old bin.
    for (const table of ['tool_series_minutes', 'tool_series_hours']) {
      const bins = (tool: string) => {
        const row = db.prepare(`SELECT * FROM ${table} WHERE tool = ?`).get(tool) as Record<string, number>;
        return LATENCY_BIN_COLUMNS.map((column) => row[column]);
      };
      const http = new Array(LATENCY_BIN_COLUMNS.length).fill(0);
      http[latencyBinOf(3.25)] += 1;
      http[latencyBinOf(5.5)] += 1;
      expect(bins('http_request')).toEqual(http);
      const write = new Array(LATENCY_BIN_COLUMNS.length).fill(0);
      write[latencyBinOf(0)] += 1;
      write[latencyBinOf(40)] += 1;
      expect(bins('write_file')).toEqual(write);
    }
    db.close();
  });
});
