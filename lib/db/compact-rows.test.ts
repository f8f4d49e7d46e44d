import fs from 'node:fs';
import path from 'node:path';
import { getTableColumns } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../executor/manual-clock';
import type { TraceRecord } from '../executor/types';
import { migrate } from './migrate';
import type { SqliteDatabase } from './open-database';
import { toolCalls } from './schema';
import { searchIdTriggersSql } from './search-index';
import { INDEX_IDLE_MS } from './search-indexer';
import { createSqliteTraceStore } from './sqlite-trace-store';
import { createTempDataDir } from './test-database';
import { openDatabaseBefore } from './testing/tool-series-check';
import { decodeTraceId, encodeTraceId, unfinishedIdsToBytesSql } from './trace-id';
import { encodeTraceRecord } from './trace-row';
import { makeTrace } from './trace-store-suite';
import { createVault, type Vault } from './vault';

const temp = createTempDataDir('toolscope-compact-rows-');
afterAll(() => temp.remove());
let count = 0;
const nextDir = () => path.join(temp.dir, `db-${++count}`);

/** Writes `trace` as the store did before migration 0012: id as text, stages and attempts as JSON, metadata `{}`. */
function writeOldRow(db: SqliteDatabase, vault: Vault, trace: TraceRecord, stagesText: string): void {
  const values: Record<string, unknown> = {
    ...encodeTraceRecord(trace, null),
    id: trace.id,
    stages: stagesText,
    attempts: JSON.stringify(trace.attempts),
    metadata: '{}',
    modelMessage: trace.modelMessage,
    sealedArguments: vault.seal(trace.rawArguments, trace.id),
    sealedEditedArguments: null,
  };
  // Columns added after 0012 (principal_ref, 0015) are not there yet.
  delete values.principalRef;
  const columns = Object.entries(getTableColumns(toolCalls)).filter(([key]) => key in values && key !== 'seq');
  db.prepare(
    `INSERT INTO tool_calls (${columns.map(([, column]) => column.name).join(', ')})
     VALUES (${columns.map(([key]) => `@${key}`).join(', ')})`,
  ).run(Object.fromEntries(columns.map(([key]) => [key, values[key] ?? null])));
}

const uuid = (n: number) => `0192f3a4-5b6c-7d8e-9fa0-${n.toString(16).padStart(12, '0')}`;

describe('rows written before migration 0012 (compact rows)', () => {
  it('0012 holds exactly the SQL generated for the id search triggers and the unfinished ids', () => {
    const migration = fs.readFileSync(path.join('drizzle', '0012_compact_rows.sql'), 'utf8');
    expect(migration).toContain(searchIdTriggersSql());
    expect(migration).toContain(unfinishedIdsToBytesSql());
  });

  it('read, search, step, delete and finish as before, next to the rows written after', async () => {
    const dir = nextDir();
    const db = openDatabaseBefore(dir, '_compact_rows');
    const vault = createVault({ dir });
    const failed = makeTrace({
      id: uuid(1),
      status: 'failed',
      output: undefined,
      error: { code: 'HTTP_ERROR', message: 'HTTP 503 from alpha.example', retryable: true, kind: 'business' },
      modelMessage: 'Error HTTP_ERROR: HTTP 503 from alpha.example\nRetrying this call may succeed.',
    });
    const waiting = makeTrace({
      id: uuid(2),
      sideEffect: 'write',
      status: 'awaiting_approval',
      finishedAt: null,
      latencyMs: null,
      output: undefined,
      modelMessage: null,
    });
    // Stages as the JSON tuples of migration 0010 in one row, as JSON objects in the other.
    writeOldRow(db, vault, failed, JSON.stringify(failed.stages.map((stage) => [stage.startedAt, stage.durationMs])));
    writeOldRow(db, vault, waiting, JSON.stringify(waiting.stages));
    // The stages tuples above drop names, statuses and details that are not the usual: write usual ones.
    failed.stages = failed.stages.map((stage, index) => ({
      ...stage,
      name: (['parse', 'validate', 'permission', 'execute', 'normalize', 'trace'] as const)[index] ?? stage.name,
      status: 'ok',
      detail: null,
    }));
    migrate(db);
    const stored = db.prepare('SELECT id FROM tool_calls ORDER BY seq').pluck().all() as (string | Buffer)[];
    // The finished call keeps its text id; the unfinished one has its 16 bytes already.
    expect(stored[0]).toBe(failed.id);
    expect(Buffer.isBuffer(stored[1]) && decodeTraceId(stored[1])).toBe(waiting.id);

    const clock = createManualClock();
    const store = createSqliteTraceStore({ db, vault, timers: clock });
    const fresh = makeTrace({ id: uuid(3), output: { text: 'after' } });
    store.finish(fresh);
    store.flush();
    expect(store.get(failed.id)).toMatchObject({
      id: failed.id,
      stages: failed.stages,
      attempts: failed.attempts,
      error: failed.error,
      modelMessage: failed.modelMessage,
      metadata: {},
    });
    expect(store.openSealedArguments(failed.id)?.rawArguments).toBe(failed.rawArguments);
    expect(store.list().items.map((item) => item.id)).toEqual([fresh.id, waiting.id, failed.id]);
    expect(store.adjacent(waiting.id)).toEqual({ newer: fresh.id, older: failed.id });
    // Found by an id's tail and by its whole text, above the index's mark and in it.
    const search = (text: string) => store.list({ text }).items.map((item) => item.id);
    const expected = [[failed.id], [failed.id], [fresh.id], [fresh.id]];
    const texts = [failed.id.slice(-8), failed.id, fresh.id.slice(-10), fresh.id];
    expect(texts.map(search)).toEqual(expected);
    await clock.advance(INDEX_IDLE_MS);
    expect(db.prepare('SELECT indexed_upto FROM search_state').pluck().get()).toBe(3);
    expect(texts.map(search)).toEqual(expected);

    // The call awaiting approval finishes in place (one row), and its id search entry goes with it.
    store.finish({ ...waiting, status: 'succeeded', finishedAt: waiting.createdAt + 9, latencyMs: 9 });
    store.flush();
    expect(db.prepare('SELECT count(*) FROM tool_calls').pluck().get()).toBe(3);
    expect(store.get(waiting.id)?.status).toBe('succeeded');
    expect(store.delete(failed.id)).toBe('deleted');
    expect(store.delete(waiting.id)).toBe('deleted');
    expect(store.get(failed.id)).toBeNull();
    expect(search(waiting.id.slice(-8))).toEqual([]);
    expect(db.prepare('SELECT id FROM tool_calls').pluck().all()).toEqual([encodeTraceId(fresh.id)]);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    store.close();
  });
});
