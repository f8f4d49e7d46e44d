import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CODED_COLUMNS,
  codedColumnsMigrationSql,
  decodedSql,
  finishedSql,
  readsCodedColumn,
  storedForm,
} from './coded-columns';
import { openDatabase } from './open-database';
import { createSqliteTraceStore } from './sqlite-trace-store';
import { createTempDataDir } from './test-database';
import { openDatabaseBefore, writeRowDirectly } from './testing/tool-series-check';
import { makeTrace } from './trace-store-suite';
import { createVault } from './vault';

const temp = createTempDataDir('toolscope-coded-columns-');
afterAll(() => temp.remove());
let count = 0;
const nextDir = () => path.join(temp.dir, `db-${++count}`);

/** Stores `value` as a writer does and reads it back as a query does; also returns the stored value. */
function roundTrip(column: keyof typeof CODED_COLUMNS, value: unknown, createdAt = 1_700_000_000_000) {
  const db = new Database(':memory:');
  try {
    const { stored } = CODED_COLUMNS[column];
    db.exec(
      `CREATE TABLE t (created_at INTEGER, \`${stored}\`, \`${column}\` GENERATED ALWAYS AS (${decodedSql(column)}) VIRTUAL)`,
    );
    // As the store writes it: the stored form from JS, a finish time coded in SQL.
    const written = column === 'finished_at' ? finishedSql('@value', '@createdAt') : '@stored';
    db.prepare(`INSERT INTO t (created_at, \`${stored}\`) VALUES (@createdAt, ${written})`).run({
      createdAt,
      value,
      stored: column === 'finished_at' ? null : storedForm(column, value as string | number | null),
    });
    return db.prepare(`SELECT \`${stored}\` AS stored, \`${column}\` AS read FROM t`).get() as {
      stored: unknown;
      read: unknown;
    };
  } finally {
    db.close();
  }
}

describe('coded columns (migration 0014)', () => {
  it('0014 holds exactly the SQL generated for the triggers 0013 left', () => {
    const db = openDatabaseBefore(nextDir(), '_coded_columns');
    const triggers = (
      db
        .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'tool_calls' ORDER BY name")
        .all() as { name: string; sql: string }[]
    ).filter((trigger) => readsCodedColumn(trigger.sql));
    db.close();
    expect(triggers.map((trigger) => trigger.name)).toContain('tool_counts_after_status');
    const migration = fs.readFileSync(path.join('drizzle', '0014_coded_columns.sql'), 'utf8');
    expect(migration).toContain(codedColumnsMigrationSql(triggers));
  });

  it('reads every usual value back from a one-character code (or none), any other value as itself', () => {
    for (const [column, { coding }] of Object.entries(CODED_COLUMNS)) {
      if (coding.kind !== 'text') continue;
      for (const value of coding.values) {
        const { stored, read } = roundTrip(column as keyof typeof CODED_COLUMNS, value);
        expect(read).toBe(value);
        expect((stored as string).length).toBeLessThanOrEqual(1);
      }
    }
    for (const value of [
      'fs__read_text_file',
      'search_docs',
      '',
      'x',
      '\u0001',
      '\u0001read_file',
      '\u001f',
      '\u001fa',
      ' ',
    ]) {
      expect(roundTrip('tool', value).read).toBe(value);
      expect(roundTrip('actor', value).read).toBe(value);
    }
    for (const [id, storedLength] of [
      ['call_wKvPNPaZ2Tkkk2vNYBdgkDwS', 25],
      ['toolu_01ZzEKJV2sbC9BRtin6hUoR4', 23],
      ['toolu_x', 2],
      ['call_', 1],
      ['c', 1],
      ['', 1],
      ['\u0002call_x', 8],
      ['\u001f', 2],
    ] as const) {
      const { stored, read } = roundTrip('tool_call_id', id);
      expect(read).toBe(id);
      expect((stored as string).length).toBe(storedLength);
    }
    expect(roundTrip('tool', null).read).toBeNull();
    expect(roundTrip('side_effect', null).read).toBeNull();
  });

  it('stores a latency in whole microseconds as a small integer, any other as it is, and reads it back exactly', () => {
    for (const ms of [4.053, 0.001, 0.2, 12, 1234.567, 86_400_000.001]) {
      const { stored, read } = roundTrip('latency_ms', ms);
      expect(read).toBe(ms);
      expect(stored).toBe(-Math.round(ms * 1000));
    }
    for (const ms of [0, 0.0001, 1 / 3, 2.5e-7]) {
      const { stored, read } = roundTrip('latency_ms', ms);
      expect(read).toBe(ms);
      expect(stored).toBe(ms);
    }
    expect(roundTrip('latency_ms', null).read).toBeNull();
  });

  it('stores a finish time as the milliseconds after the start, and one before the start as it is', () => {
    const start = 1_790_000_000_000;
    for (const finished of [start, start + 1, start + 3_600_000]) {
      const { stored, read } = roundTrip('finished_at', finished, start);
      expect(read).toBe(finished);
      expect(stored).toBe(start - finished - 1);
    }
    expect(roundTrip('finished_at', start - 5, start)).toEqual({ stored: start - 5, read: start - 5 });
    expect(roundTrip('finished_at', null, start).read).toBeNull();
  });

  it('reads calls written before it as they were, and counts, lists and finishes them with the calls written after', async () => {
    const dir = nextDir();
    const old = openDatabaseBefore(dir, '_coded_columns');
    const vault = createVault({ dir });
    const before = [
      makeTrace({ tool: 'read_file', status: 'failed', latencyMs: 2.5 }),
      makeTrace({ tool: 'fs__read', actor: 'mcp', sideEffect: 'exec', latencyMs: 1 / 3 }),
      makeTrace({ tool: '\u0001odd', actor: '', status: 'running', finishedAt: null, latencyMs: null }),
      makeTrace({ toolCallId: '\u0001call_odd', actor: '\u0001' }),
    ];
    for (const trace of before) writeRowDirectly(old, vault, trace);
    old.close();

    const db = openDatabase(path.join(dir, 'toolscope.db'));
    const store = createSqliteTraceStore({ db, vault });
    try {
      for (const trace of before) {
        const read = store.get(trace.id);
        expect(read?.tool).toBe(trace.tool);
        expect(read?.toolCallId).toBe(trace.toolCallId);
        expect(read?.actor).toBe(trace.actor);
        expect(read?.status).toBe(trace.status);
        expect(read?.sideEffect).toBe(trace.sideEffect);
        expect(read?.latencyMs).toBe(trace.latencyMs);
        expect(read?.finishedAt).toBe(trace.finishedAt);
      }
      const after = makeTrace({ tool: 'read_file', status: 'failed' });
      await store.finish(after);
      await store.finish({
        ...(before[2] as (typeof before)[number]),
        status: 'succeeded',
        finishedAt: Date.now(),
        latencyMs: 7,
      });
      expect(store.list({ tool: 'read_file' }).items.map((trace) => trace.id)).toEqual([after.id, before[0]?.id]);
      expect(store.list({ status: 'failed' }).items.map((trace) => trace.id)).toEqual([after.id, before[0]?.id]);
      expect(store.get(before[2]?.id as string)?.status).toBe('succeeded');
      const stats = Object.fromEntries(store.toolStats().map((tool) => [tool.tool, [tool.calls, tool.failures]]));
      expect(stats).toMatchObject({ read_file: [2, 2], fs__read: [1, 0], '\u0001odd': [1, 0] });
      // The call written after holds the compact forms.
      const row = db
        .prepare(
          'SELECT tool_call_id_stored, tool_stored, status_stored, actor_stored, latency_stored, finished_stored FROM tool_calls WHERE tool_call_id = ?',
        )
        .get(after.toolCallId) as Record<string, unknown>;
      expect(row.tool_call_id_stored).toBe(after.toolCallId.replace(/^call_/, '\u0001'));
      expect(row.tool_stored).toBe('\u0001');
      expect(row.status_stored).toBe('\u0001');
      expect(row.actor_stored).toBe('\u0001');
      expect(row.latency_stored).toBeLessThan(0);
      expect(row.finished_stored).toBeLessThan(0);
    } finally {
      await store.close();
    }
  });
});
