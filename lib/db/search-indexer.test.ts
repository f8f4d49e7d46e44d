import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../executor/manual-clock';
import type { CommitTimers } from './commit-timers';
import { fts5LevelSegments, structureSql } from './fts5-structure';
import type { SqliteDatabase } from './open-database';
import { SEARCH_TABLES, SEARCHED_TEXT_CHARS, searchIndexQuery } from './search-index';
import {
  createSearchIndexer,
  FTS5_CRISIS_MERGE,
  HOLD_RUNNING_MS,
  INDEX_STEP_CHARS,
  INDEX_STEP_ROWS,
  LEVEL_SEGMENTS_BEHIND,
} from './search-indexer';
import { createSqliteTraceStore } from './sqlite-trace-store';
import { createTempDataDir, openTestDatabase } from './test-database';
import { encodeTraceId } from './trace-id';
import { makeTrace } from './trace-store-suite';
import { createVault } from './vault';

const temp = createTempDataDir('toolscope-search-indexer-');
afterAll(() => temp.remove());
let count = 0;
const nextDir = () => path.join(temp.dir, `db-${++count}`);

/**
 * An indexer on `db` whose scheduled steps run one at a time, when the test says: `step()` runs
 * the next and answers the mark after it; `delay()` is the wait the indexer asked for the next.
 */
function steppedIndexer(db: SqliteDatabase, now: () => number = Date.now) {
  const queued: { callback: () => void; ms: number }[] = [];
  const timers: CommitTimers = {
    setTimeout: (callback, ms) => queued.push({ callback, ms }),
    clearTimeout: () => queued.splice(0),
  };
  const indexer = createSearchIndexer(db, timers, { epochMs: now });
  return {
    step(): number {
      queued.shift()?.callback();
      return indexer.indexedUpTo();
    },
    delay: () => queued[0]?.ms ?? null,
    afterCommit: (newest: number) => indexer.afterCommit(newest),
    stop: () => indexer.stop(),
  };
}

/** The rows the index holds for `text` (before any LIKE test). */
const inIndex = (db: SqliteDatabase, text: string) =>
  db.prepare('SELECT rowid FROM tool_calls_search WHERE tool_calls_search MATCH ?').pluck().all(searchIndexQuery(text));

/** A call whose output is `chars` characters of text ending in `word`. */
/** `word` first in a call's output, then `kib` KiB of text in each of its output, stdout and stderr (and arguments, `wide`). */
const withText = (word: string, kib: number, wide = false) => {
  const text = 'x'.repeat(kib * 1024);
  return makeTrace({
    output: `${word} ${text}`,
    stdout: text,
    stderr: text,
    ...(wide ? { arguments: { text } } : {}),
  });
};

describe('the search indexer', () => {
  it('indexes at most INDEX_STEP_CHARS of searched text per step (one row at least), the loop free between', () => {
    const dir = nextDir();
    const db = openTestDatabase(dir);
    const clock = createManualClock();
    const store = createSqliteTraceStore({ db, vault: createVault({ dir }), timers: clock });
    // Each big one fills most of a step (3 × 60 KiB of 256 KiB); the small ones fit beside the
    // second; the last is over the bound alone (4 fields, each read up to SEARCHED_TEXT_CHARS).
    expect(3 * 60 * 1024).toBeGreaterThan(INDEX_STEP_CHARS / 2);
    expect(4 * SEARCHED_TEXT_CHARS).toBeGreaterThanOrEqual(INDEX_STEP_CHARS);
    const calls = [
      withText('first', 60),
      withText('second', 60),
      ...Array.from({ length: 10 }, (_, i) => makeTrace({ output: { small: i } })),
      withText('last', 100, true),
    ];
    // The store's own indexer waits for its (manual) clock, which stays still.
    for (const call of calls) store.finish(call);
    store.flush();
    const seqOf = (id: string) => db.prepare('SELECT seq FROM tool_calls WHERE id = ?').pluck().get(encodeTraceId(id));
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

  it('merges enough after each step that no level of the index reaches FTS5_CRISIS_MERGE, where FTS5 would merge it whole', () => {
    const dir = nextDir();
    const db = openTestDatabase(dir);
    const store = createSqliteTraceStore({ db, vault: createVault({ dir }), timers: createManualClock() });
    // Outputs of varied words: each step writes a segment of many leaf pages, more than
    // MERGE_PAGES_PER_STEP merges, so the levels fill as they do under sustained writes.
    let seed = 7;
    const word = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed.toString(36);
    };
    const calls = 12_000;
    for (let i = 0; i < calls; i++) store.finish(makeTrace({ output: Array.from({ length: 60 }, word).join(' ') }));
    store.flush();
    const indexer = createSearchIndexer(db, { setTimeout: () => 0, clearTimeout: () => {} });
    const structures = SEARCH_TABLES.map((table) => db.prepare(structureSql(table.name)).pluck());
    let fullest = 0;
    while (indexer.indexSome(INDEX_STEP_ROWS) > 0) {
      for (const structure of structures) {
        const levels = fts5LevelSegments(structure.get() as Buffer);
        expect(levels).not.toBeNull();
        fullest = Math.max(fullest, ...(levels ?? []));
      }
    }
    // A level reached LEVEL_SEGMENTS_BEHIND (merging was behind), and none came within two of
    // FTS5_CRISIS_MERGE: the next step's segment could not make FTS5 merge a level at once.
    expect(fullest).toBeGreaterThanOrEqual(LEVEL_SEGMENTS_BEHIND);
    expect(fullest).toBeLessThanOrEqual(FTS5_CRISIS_MERGE - 2);
    expect(indexer.indexedUpTo()).toBe(calls);
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

  it('holds a call still running back, with the calls after it, and indexes it once it finished', () => {
    const dir = nextDir();
    const db = openTestDatabase(dir);
    const store = createSqliteTraceStore({ db, vault: createVault({ dir }), timers: createManualClock() });
    const now = 1_800_000_000_000;
    const before = makeTrace({ output: 'alpha before' });
    // A write call's begin is committed on its own: the finish is an UPDATE of the row.
    const running = makeTrace({
      sideEffect: 'write',
      status: 'running',
      createdAt: now - 1_000,
      finishedAt: null,
      output: undefined,
    });
    const after = makeTrace({ output: 'gamma after' });
    store.finish(before);
    store.begin(running);
    store.finish(after);
    store.flush();
    const seqOf = (id: string) => db.prepare('SELECT seq FROM tool_calls WHERE id = ?').pluck().get(encodeTraceId(id));
    const indexer = steppedIndexer(db, () => now);
    expect(indexer.step()).toBe(seqOf(before.id));
    // Tried again when its hold ends.
    expect(indexer.delay()).toBe(HOLD_RUNNING_MS - 1_000);
    // The calls after it are found all the same (above the mark, by LIKE).
    expect(store.list({ text: 'gamma after' }).items.map((item) => item.id)).toEqual([after.id]);
    // Its result is written without touching the index…
    store.finish({ ...running, status: 'succeeded', finishedAt: now, output: 'omega result' });
    store.flush();
    expect(inIndex(db, 'omega')).toEqual([]);
    expect(store.list({ text: 'omega result' }).items.map((item) => item.id)).toEqual([running.id]);
    // …and indexed by the next step, with the calls after it.
    indexer.afterCommit(seqOf(after.id) as number);
    expect(indexer.step()).toBe(seqOf(after.id));
    expect(inIndex(db, 'omega')).toEqual([seqOf(running.id)]);
    expect(inIndex(db, 'gamma')).toEqual([seqOf(after.id)]);
    indexer.stop();
    store.close();
  });

  it('indexes a call running for longer than HOLD_RUNNING_MS as before', () => {
    const dir = nextDir();
    const db = openTestDatabase(dir);
    const store = createSqliteTraceStore({ db, vault: createVault({ dir }), timers: createManualClock() });
    const now = 1_800_000_000_000;
    const running = makeTrace({
      sideEffect: 'write',
      status: 'awaiting_approval',
      createdAt: now - HOLD_RUNNING_MS - 1,
      finishedAt: null,
      output: undefined,
      arguments: { path: 'notes/delta.md' },
    });
    store.begin(running);
    store.finish(makeTrace());
    store.flush();
    const indexer = steppedIndexer(db, () => now);
    expect(indexer.step()).toBe(2);
    expect(indexer.delay()).toBe(null);
    expect(inIndex(db, 'delta.md')).toEqual([1]);
    indexer.stop();
    store.close();
  });
});
