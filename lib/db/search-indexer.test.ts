import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../executor/manual-clock';
import type { CommitTimers } from './commit-timers';
import type { SqliteDatabase } from './open-database';
import { createSearchIndexer, INDEX_STEP_CHARS, INDEX_STEP_ROWS } from './search-indexer';
import { createSqliteTraceStore } from './sqlite-trace-store';
import { createTempDataDir, openTestDatabase } from './test-database';
import { makeTrace } from './trace-store-suite';
import { createVault } from './vault';

const temp = createTempDataDir('toolscope-search-indexer-');
afterAll(() => temp.remove());
let count = 0;
const nextDir = () => path.join(temp.dir, `db-${++count}`);

/**
 * An indexer on `db` whose scheduled steps run one at a time, when the test says: `step()` runs
 * the next and answers the mark after it.
 */
function steppedIndexer(db: SqliteDatabase) {
  const queued: (() => void)[] = [];
  const timers: CommitTimers = {
    setTimeout: (callback) => queued.push(callback),
    clearTimeout: () => queued.splice(0),
  };
  const indexer = createSearchIndexer(db, timers);
  return {
    step(): number {
      queued.shift()?.();
      return indexer.indexedUpTo();
    },
    stop: () => indexer.stop(),
  };
}

/** A call whose output is `chars` characters of text ending in `word`. */
const withOutput = (chars: number, word: string) => makeTrace({ output: `${'x'.repeat(chars - word.length)}${word}` });

describe('the search indexer', () => {
  it('indexes at most INDEX_STEP_CHARS of searched text per step (one row at least), the loop free between', () => {
    const dir = nextDir();
    const db = openTestDatabase(dir);
    const clock = createManualClock();
    const store = createSqliteTraceStore({ db, vault: createVault({ dir }), timers: clock });
    const big = Math.floor(INDEX_STEP_CHARS * 0.75);
    // Each big one fills most of a step; the small ones fit beside the second; the last is over the bound alone.
    const calls = [
      withOutput(big, 'first'),
      withOutput(big, 'second'),
      ...Array.from({ length: 10 }, (_, i) => makeTrace({ output: { small: i } })),
      withOutput(INDEX_STEP_CHARS * 2, 'last'),
    ];
    // The store's own indexer waits for its (manual) clock, which stays still.
    for (const call of calls) store.finish(call);
    store.flush();
    const seqOf = (id: string) => db.prepare('SELECT seq FROM tool_calls WHERE id = ?').pluck().get(id);
    const indexer = steppedIndexer(db);
    expect(indexer.step()).toBe(seqOf(calls[0]?.id ?? ''));
    expect(indexer.step()).toBe(seqOf(calls[11]?.id ?? ''));
    expect(indexer.step()).toBe(seqOf(calls[12]?.id ?? ''));
    indexer.stop();
    // Every one is found through the index, as before.
    for (const [word, call] of [
      ['first', calls[0]],
      ['second', calls[1]],
      ['last', calls[12]],
    ] as const) {
      expect(store.list({ text: word }).items.map((item) => item.id)).toEqual([call?.id]);
    }
    store.close();
  });

  it('still takes INDEX_STEP_ROWS small calls in one step', () => {
    const dir = nextDir();
    const db = openTestDatabase(dir);
    const clock = createManualClock();
    const store = createSqliteTraceStore({ db, vault: createVault({ dir }), timers: clock });
    for (let i = 0; i < INDEX_STEP_ROWS + 3; i++) store.finish(makeTrace({ output: { n: i } }));
    store.flush();
    const indexer = steppedIndexer(db);
    expect(indexer.step()).toBe(INDEX_STEP_ROWS);
    expect(indexer.step()).toBe(INDEX_STEP_ROWS + 3);
    indexer.stop();
    store.close();
  });
});
