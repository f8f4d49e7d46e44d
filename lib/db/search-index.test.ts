import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../executor/manual-clock';
import type { TraceRecord } from '../executor/types';
import { systemCommitTimers } from './commit-timers';
import { likePrefix, resolveListFilter } from './list-query';
import { createMemoryTraceStore } from './memory-trace-store';
import { migrate } from './migrate';
import type { SqliteDatabase } from './open-database';
import {
  ID_TAIL_CHARS,
  idSearchQuery,
  searchIndexQuery,
  searchIndexSql,
  searchWithoutSessionsSql,
  usesSearchIndex,
} from './search-index';
import { CATCH_UP_PAUSE_MS, createSearchIndexer, INDEX_IDLE_MS, INDEX_STEP_ROWS } from './search-indexer';
import {
  createSessionPrefixLookup,
  listTracesSql,
  MAX_SEARCH_CANDIDATES,
  SEARCH_CANDIDATES_SQL,
  SESSION_CANDIDATES_SQL,
  SESSION_LOOKUP_MAX,
  SESSION_PREFIX_SQL,
  SESSION_WALK_ROWS,
  type SessionMatch,
  SMALL_SESSION_CALLS,
} from './sqlite-list-traces';
import { createSqliteTraceStore } from './sqlite-trace-store';
import { createTempDataDir, openTestDatabase } from './test-database';
import { openDatabaseBefore, writeRowDirectly } from './testing/tool-series-check';
import { encodeTraceId } from './trace-id';
import type { TraceStore } from './trace-store';
import { makeTrace } from './trace-store-suite';
import { createVault } from './vault';

const temp = createTempDataDir('toolscope-search-');
afterAll(() => temp.remove());
let count = 0;
const nextDir = () => path.join(temp.dir, `db-${++count}`);

/** The rows the index alone finds for `text` (before the LIKE test on the columns), once the indexer caught up. */
const indexed = (db: SqliteDatabase, text: string) => {
  const indexer = createSearchIndexer(db, systemCommitTimers);
  indexer.indexSome(Number.MAX_SAFE_INTEGER);
  indexer.stop();
  const candidates = db.prepare(SEARCH_CANDIDATES_SQL).pluck();
  const params = { match: searchIndexQuery(text), idMatch: idSearchQuery(text), below: 2 ** 53, floor: 0, count: 1e6 };
  return (candidates.all(params) as number[]).reverse();
};
const seqOf = (db: SqliteDatabase, id: string) =>
  db.prepare('SELECT seq FROM tool_calls WHERE id = ?').pluck().get(encodeTraceId(id));

describe('the search index (SQLite FTS5, trigram)', () => {
  it('0011 holds exactly the SQL generated for it', () => {
    const migration = fs
      .readdirSync('drizzle')
      .filter((name) => name.endsWith('_search_id_tails.sql'))
      .map((name) => fs.readFileSync(path.join('drizzle', name), 'utf8'));
    expect(migration).toEqual([searchIndexSql()]);
  });

  it('0013 holds exactly the SQL generated for it', () => {
    const migration = fs.readFileSync(path.join('drizzle', '0013_search_without_sessions.sql'), 'utf8');
    expect(migration).toBe(searchWithoutSessionsSql());
    // The session id left the index; the ids' tails are their last 8 characters.
    expect(migration).not.toMatch(/session_id/);
    expect(ID_TAIL_CHARS).toBe(8);
  });

  it('0013 empties the index of a 0012 database; the indexer refills it, and searches find the same calls throughout', async () => {
    const dir = nextDir();
    const old = openDatabaseBefore(dir, '_search_without_sessions');
    const vault = createVault({ dir });
    const calls = [
      makeTrace({ id: '01a190d0-1c3a-7a12-8a44-a1d1e7a3e465', sessionId: 'Run-Alpha-1', arguments: { city: 'Paris' } }),
      makeTrace({ id: '01a190d0-1c3a-7a12-8a44-b2d2f8b4f576', sessionId: 'run-alpha-2', output: { text: 'Lyon' } }),
      makeTrace({ sessionId: 'run-beta-1', toolCallId: 'toolu_01MxMhb9xtMSPhmHtgmygFuG' }),
    ];
    for (const call of calls) writeRowDirectly(old, vault, call);
    // As 0012's indexer left it: every call in the index, session ids and the ids' last 12 included.
    old.exec(`INSERT INTO tool_calls_search (rowid, session_id_trigrams, error_trigrams, arguments_trigrams, output_trigrams, stdout_trigrams, stderr_trigrams)
      SELECT seq, session_id, error, arguments, output, stdout, stderr FROM tool_calls`);
    old.exec(`INSERT INTO tool_calls_id_search (rowid, id_trigrams, tool_call_id_trigrams)
      SELECT seq, substr(id, -12), substr(tool_call_id, -12) FROM tool_calls`);
    old.exec('UPDATE search_state SET indexed_upto = (SELECT max(seq) FROM tool_calls)');
    migrate(old);
    expect(old.prepare('SELECT indexed_upto FROM search_state').pluck().get()).toBe(0);
    const columns = (table: string) => old.prepare(`SELECT name FROM pragma_table_info('${table}')`).pluck().all();
    expect(columns('tool_calls_search')).toEqual([
      'error_trigrams',
      'arguments_trigrams',
      'output_trigrams',
      'stdout_trigrams',
      'stderr_trigrams',
    ]);
    const clock = createManualClock();
    const store = createSqliteTraceStore({ db: old, vault, timers: clock });
    const [alpha1, alpha2, beta1] = calls.map((call) => call.id);
    const searches: [string, (string | undefined)[]][] = [
      ['RUN-ALPHA', [alpha2, alpha1]],
      ['run-', [beta1, alpha2, alpha1]],
      ['un-alpha', []],
      ['e7a3e465', [alpha1]],
      ['a1d1e7a3e465', [alpha1]],
      ['a1d1e7a3', []],
      ['tgmygfug', [beta1]],
      ['paris', [alpha1]],
      ['LYON', [alpha2]],
    ];
    const found = () => searches.map(([text]) => store.list({ text }).items.map((item) => item.id));
    const expected = searches.map(([, ids]) => ids);
    // Above the mark (the LIKE scan), then through the refilled index.
    expect(found()).toEqual(expected);
    await clock.advance(INDEX_IDLE_MS);
    expect(old.prepare('SELECT indexed_upto FROM search_state').pluck().get()).toBe(seqOf(old, beta1 ?? ''));
    expect(found()).toEqual(expected);
    expect(indexed(old, 'e7a3e465')).toEqual([seqOf(old, alpha1 ?? '')]);
    expect(indexed(old, 'a1d1e7a3')).toEqual([]);
    expect(indexed(old, 'run-alpha')).toEqual([]);
    expect(indexed(old, 'paris')).toEqual([seqOf(old, alpha1 ?? '')]);
    store.close();
  });

  it('0010 and 0011 leave the calls stored before them to the indexer, which indexes them when the store opens', async () => {
    const dir = nextDir();
    const old = openDatabaseBefore(dir, '_search_index');
    const vault = createVault({ dir });
    const before = makeTrace({ output: { answer: 'Paris is the capital' } });
    writeRowDirectly(old, vault, before);
    migrate(old);
    expect(old.prepare('SELECT indexed_upto FROM search_state').pluck().get()).toBe(0);
    const clock = createManualClock();
    const store = createSqliteTraceStore({ db: old, vault, timers: clock });
    // Found before the index has it (the rows above its mark are scanned), and after.
    expect(store.list({ text: 'CAPITAL' }).items.map((item) => item.id)).toEqual([before.id]);
    await clock.advance(INDEX_IDLE_MS);
    expect(old.prepare('SELECT indexed_upto FROM search_state').pluck().get()).toBe(seqOf(old, before.id));
    expect(store.list({ text: 'CAPITAL' }).items.map((item) => item.id)).toEqual([before.id]);
    expect(indexed(old, 'paris')).toEqual([seqOf(old, before.id)]);
    store.close();
  });

  it('follows a call through begin, finish, a rewrite and a delete', async () => {
    const dir = nextDir();
    const db = openTestDatabase(dir);
    const store = createSqliteTraceStore({ db, vault: createVault({ dir }) });
    // A write call's begin is committed on its own, so its finish is an UPDATE of the row.
    const call: TraceRecord = makeTrace({
      sideEffect: 'write',
      status: 'running',
      finishedAt: null,
      output: undefined,
      arguments: { path: 'notes/alpha.md' },
    });
    store.begin(call);
    expect(indexed(db, 'alpha.md')).toEqual([seqOf(db, call.id)]);
    expect(indexed(db, call.id.slice(-8))).toEqual([seqOf(db, call.id)]);
    expect(indexed(db, 'omega')).toEqual([]);
    await store.finish({ ...call, status: 'succeeded', finishedAt: call.createdAt + 5, output: { text: 'omega' } });
    expect(indexed(db, 'omega')).toEqual([seqOf(db, call.id)]);
    await store.finish({ ...call, status: 'succeeded', finishedAt: call.createdAt + 5, output: { text: 'sigma' } });
    expect(indexed(db, 'omega')).toEqual([]);
    expect(store.list({ text: 'sigma' }).items.map((item) => item.id)).toEqual([call.id]);
    expect(store.delete(call.id)).toBe('deleted');
    expect(indexed(db, 'sigma')).toEqual([]);
    expect(indexed(db, 'alpha.md')).toEqual([]);
    // Its ids' tails too (the other table of the index).
    expect(indexed(db, call.id.slice(-8))).toEqual([]);
    store.close();
  });

  it('indexes once writes pause for INDEX_IDLE_MS, not while they go on', async () => {
    const dir = nextDir();
    const db = openTestDatabase(dir);
    const clock = createManualClock();
    const store = createSqliteTraceStore({ db, vault: createVault({ dir }), timers: clock });
    const mark = () => db.prepare('SELECT indexed_upto FROM search_state').pluck().get();
    for (let i = 0; i < 5; i++) {
      store.finish(makeTrace());
      store.flush();
      await clock.advance(INDEX_IDLE_MS - 1);
    }
    expect(mark()).toBe(0);
    await clock.advance(1);
    expect(mark()).toBe(5);
    store.close();
  });

  it('far behind while writes go on: a step every CATCH_UP_PAUSE_MS or more (a tenth of the loop) until caught up; once writes pause, steps at once', async () => {
    const dir = nextDir();
    const db = openTestDatabase(dir);
    const vault = createVault({ dir });
    const clock = createManualClock();
    // Each reading of the time is stepMs later than the one before: a step lasts stepMs.
    let stepMs = 0;
    let elapsed = 0;
    const now = () => {
      elapsed += stepMs;
      return clock.now() + elapsed;
    };
    const indexer = createSearchIndexer(db, clock, { maxUnindexedRows: 2 * INDEX_STEP_ROWS, now });
    const write = (count: number) => {
      for (let i = 0; i < count; i++) writeRowDirectly(db, vault, makeTrace());
      indexer.afterCommit(db.prepare('SELECT max(seq) FROM tool_calls').pluck().get() as number);
    };
    write(2 * INDEX_STEP_ROWS - 1);
    await clock.advance(CATCH_UP_PAUSE_MS);
    expect(indexer.indexedUpTo()).toBe(0);
    write(1);
    // Writes go on, one commit per pause: one step each time, never a backlog swallowed at once.
    for (let steps = 1; steps <= 2; steps++) {
      await clock.advance(CATCH_UP_PAUSE_MS - 1);
      expect(indexer.indexedUpTo()).toBe((steps - 1) * INDEX_STEP_ROWS);
      await clock.advance(1);
      expect(indexer.indexedUpTo()).toBe(steps * INDEX_STEP_ROWS);
      write(1);
    }
    // A step that takes 1 ms waits 9 ms for the next: catching up takes a tenth of the loop at most.
    write(3 * INDEX_STEP_ROWS);
    const slow = indexer.indexedUpTo();
    stepMs = 1;
    await clock.advance(CATCH_UP_PAUSE_MS);
    expect(indexer.indexedUpTo()).toBe(slow + INDEX_STEP_ROWS);
    write(1);
    await clock.advance(8);
    expect(indexer.indexedUpTo()).toBe(slow + INDEX_STEP_ROWS);
    await clock.advance(1);
    expect(indexer.indexedUpTo()).toBe(slow + 2 * INDEX_STEP_ROWS);
    stepMs = 0;
    // Commits do not push a catch-up step back; once they stop, the steps follow each other at once.
    write(3 * INDEX_STEP_ROWS);
    await clock.advance(9);
    expect(indexer.indexedUpTo()).toBe(slow + 3 * INDEX_STEP_ROWS);
    await clock.advance(CATCH_UP_PAUSE_MS);
    expect(indexer.indexedUpTo()).toBe(db.prepare('SELECT max(seq) FROM tool_calls').pluck().get());
    indexer.stop();
    db.close();
  });

  it('finds calls above the mark and in the index alike, newest first, page after page', async () => {
    const dir = nextDir();
    const db = openTestDatabase(dir);
    const clock = createManualClock();
    const store = createSqliteTraceStore({ db, vault: createVault({ dir }), timers: clock });
    const calls = Array.from({ length: 12 }, (_, i) =>
      makeTrace({ arguments: { path: i % 3 === 0 ? `hay/${i}` : `needle/${i}` } }),
    );
    for (const call of calls.slice(0, 7)) store.finish(call);
    store.flush();
    await clock.advance(INDEX_IDLE_MS);
    for (const call of calls.slice(7)) store.finish(call);
    store.flush();
    expect(db.prepare('SELECT indexed_upto FROM search_state').pluck().get()).toBe(seqOf(db, calls[6]?.id ?? ''));
    const expected = calls
      .filter((_, i) => i % 3 !== 0)
      .map((call) => call.id)
      .reverse();
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = store.list({ text: 'NEEDLE/', limit: 3, cursor });
      expect(page.partial).toBe(false);
      seen.push(...page.items.map((item) => item.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(expected);
    store.close();
  });

  it('searches a text holding a NUL up to the NUL, in the index and above its mark, never failing (the traces page reads the store itself)', async () => {
    const dir = nextDir();
    const db = openTestDatabase(dir);
    const clock = createManualClock();
    const store = createSqliteTraceStore({ db, vault: createVault({ dir }), timers: clock });
    const calls = Array.from({ length: 6 }, (_, i) =>
      makeTrace({ arguments: { path: i % 2 ? `needle/${i}` : 'hay' } }),
    );
    for (const call of calls.slice(0, 3)) store.finish(call);
    store.flush();
    await clock.advance(INDEX_IDLE_MS);
    for (const call of calls.slice(3)) store.finish(call);
    store.flush();
    const ids = (text: string) => store.list({ text }).items.map((item) => item.id);
    const needles = [calls[5]?.id, calls[3]?.id, calls[1]?.id];
    // SQLite reads a bound text as a C string: FTS5 said "unterminated string" of "nee\0dle".
    expect(ids('needle/\u0000')).toEqual(needles);
    expect(ids('need\u0000le')).toEqual(needles);
    expect(ids('nee\u0000\u0000\u0000')).toEqual(needles);
    expect(ids('\u0000needle')).toHaveLength(6);
    expect(ids('\u0000')).toHaveLength(6);
    store.close();
  });

  it('holds the last 8 characters of each id: found by them and by a text ending the id, in the index and above its mark alike', async () => {
    const dir = nextDir();
    const db = openTestDatabase(dir);
    const clock = createManualClock();
    const store = createSqliteTraceStore({ db, vault: createVault({ dir }), timers: clock });
    const call = makeTrace({ id: '01a190d0-1c3a-7a12-8a44-a1d1e7a3e465', toolCallId: 'call_UKPSLNJnmCctDlVRKxHhVP6q' });
    store.finish(call);
    store.flush();
    const found = (text: string) => store.list({ text }).items.map((item) => item.id);
    const texts = [
      'e7a3e465',
      call.id,
      'call_UKPSLNJnmCctDlVRKxHhVP6q',
      'KXHHVP6Q',
      'DLVRKXHHVP6Q',
      'DLVRKXHH',
      'a1d1e7a3',
      '7a12-8a44',
      'call_UKPSLNJ',
    ];
    const above = texts.map(found);
    await clock.advance(INDEX_IDLE_MS);
    expect(db.prepare('SELECT indexed_upto FROM search_state').pluck().get()).toBe(seqOf(db, call.id));
    expect(texts.map(found)).toEqual(above);
    expect(above).toEqual([[call.id], [call.id], [call.id], [call.id], [call.id], [], [], [], []]);
    // The index alone: the tails, not what lies before them.
    expect(indexed(db, 'e7a3e465')).toEqual([seqOf(db, call.id)]);
    expect(indexed(db, 'kxhhvp6q')).toEqual([seqOf(db, call.id)]);
    expect(indexed(db, 'a1d1e7a3')).toEqual([]);
    expect(indexed(db, 'DLVRKXHH')).toEqual([]);
    expect(indexed(db, '7a12-8a44')).toEqual([]);
    store.close();
  });

  it('walks the index newest first without sorting, then reads each candidate by seq', () => {
    const db = openTestDatabase(nextDir());
    const plan = (sql: string, params: Record<string, unknown>) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[]).map((row) => row.detail);
    const candidates = plan(SEARCH_CANDIDATES_SQL, {
      match: searchIndexQuery('paris'),
      idMatch: idSearchQuery('paris'),
      below: 10,
      floor: 0,
      count: 51,
    });
    // Both tables walked newest first (ORDER BY rowid DESC consumed, no sort), merged as they go.
    expect(candidates).toEqual([
      'MERGE (UNION)',
      'LEFT',
      expect.stringMatching(/^SCAN tool_calls_search VIRTUAL TABLE INDEX 192:/),
      'RIGHT',
      expect.stringMatching(/^SCAN tool_calls_id_search VIRTUAL TABLE INDEX 192:/),
    ]);
    for (const query of [{ text: 'paris' }, { text: 'paris', tool: 'read_file' }]) {
      const verify = plan(listTracesSql(resolveListFilter(query), null), {
        candidates: '[3,2,1]',
        pattern: '%paris%',
        prefix: 'paris%',
        suffix: '%paris',
        tool: 'read_file',
      });
      expect(verify.join(' | ')).toMatch(/^SEARCH tool_calls USING INTEGER PRIMARY KEY \(rowid=\?\)/);
      expect(verify.join(' | ')).not.toMatch(/SCAN tool_calls(?! USING)/);
    }
    db.close();
  });

  it('finds sessions by the start of their id in the primary key of sessions, and their calls through the session index', () => {
    const db = openTestDatabase(nextDir());
    const plan = (sql: string, params: Record<string, unknown>) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[])
        .map((row) => row.detail)
        .join(' | ');
    const range = { low: 'run-a', high: 'run-b', count: 10 };
    expect(plan(SESSION_PREFIX_SQL.exists, range)).toBe(
      'SEARCH sessions USING COVERING INDEX sqlite_autoindex_sessions_1 (id>? AND id<?)',
    );
    // Each id found, its row for its calls.
    expect(plan(SESSION_PREFIX_SQL.ids, range)).toBe(
      'SEARCH sessions USING INDEX sqlite_autoindex_sessions_1 (id>? AND id<?)',
    );
    const below = { below: 100, floor: 0, count: 51 };
    expect(plan(SESSION_CANDIDATES_SQL.smallSessions, { ...below, sessions: '["run-a"]' })).toMatch(
      /^SEARCH tool_calls USING COVERING INDEX tool_calls_session_seq_idx \(session_id=\? AND rowid>\? AND rowid<\?\) \| LIST SUBQUERY 1 \| SCAN json_each VIRTUAL TABLE INDEX \d+:/,
    );
    expect(plan(SESSION_CANDIDATES_SQL.oneSession, { ...below, session: 'run-a' })).toBe(
      'SEARCH tool_calls USING COVERING INDEX tool_calls_session_seq_idx (session_id=? AND rowid>? AND rowid<?)',
    );
    expect(plan(SESSION_CANDIDATES_SQL.walk, { ...below, prefix: 'run-a%' })).toBe(
      'SEARCH tool_calls USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)',
    );
    db.close();
  });

  it('looks sessions up by the start of their id, ignoring ASCII case, each character taken literally', () => {
    const db = openTestDatabase(nextDir());
    const insert = db.prepare(
      'INSERT INTO sessions (id, first_call_at, last_call_at, last_call_second, calls) VALUES (?, 0, 0, 0, 1)',
    );
    const ids = [
      'Agent-1',
      'agent-2',
      'AGENT-3',
      'agentX',
      'agen',
      'b_1',
      'bx1',
      '50%',
      'Émile',
      'émile',
      '\u{10FFFF}a',
      'z\u{10FFFF}',
    ];
    for (const id of ids) insert.run(id);
    const lookup = createSessionPrefixLookup(db);
    const sorted = (match: SessionMatch) => (match === 'many' ? match : [...match.small, ...match.large].sort());
    expect(sorted(lookup('AGENT-'))).toEqual(['AGENT-3', 'Agent-1', 'agent-2']);
    expect(sorted(lookup('agent'))).toEqual(['AGENT-3', 'Agent-1', 'agent-2', 'agentX']);
    expect(sorted(lookup('AGENT-3'))).toEqual(['AGENT-3']);
    expect(sorted(lookup('agent-4'))).toEqual([]);
    expect(sorted(lookup('gent'))).toEqual([]);
    expect(sorted(lookup('b_'))).toEqual(['b_1']);
    expect(sorted(lookup('5%'))).toEqual([]);
    expect(sorted(lookup('50%'))).toEqual(['50%']);
    expect(sorted(lookup('ÉMILE'))).toEqual(['Émile']);
    expect(sorted(lookup('\u{10FFFF}'))).toEqual(['\u{10FFFF}a']);
    expect(sorted(lookup('Z\u{10FFFF}'))).toEqual(['z\u{10FFFF}']);
    // A session of more than SMALL_SESSION_CALLS calls is read on its own.
    db.prepare('UPDATE sessions SET calls = ? WHERE id = ?').run(SMALL_SESSION_CALLS + 1, 'agent-2');
    expect(lookup('agent-')).toEqual({ small: ['AGENT-3', 'Agent-1'], large: ['agent-2'] });
    // The same answers as LIKE over every session id.
    const like = db.prepare("SELECT id FROM sessions WHERE id LIKE ? ESCAPE '\\' ORDER BY id").pluck();
    for (const text of ['AGENT-', 'agent', 'b_', '50%', 'ÉMILE', 'émile', 'x', '\u{10FFFF}'])
      expect(sorted(lookup(text)), text).toEqual(like.all(likePrefix(text)));
    for (let i = 0; i < SESSION_LOOKUP_MAX; i++) insert.run(`Bulk-${i}`);
    expect(sorted(lookup('bulk-'))).toHaveLength(SESSION_LOOKUP_MAX);
    insert.run('bULK-last');
    expect(lookup('bulk-')).toBe('many');
    expect(sorted(lookup('bulk-1'))).toHaveLength(1 + 10 + 100 + 24);
    db.close();
  });

  it('past SESSION_LOOKUP_MAX sessions starting with the text, walks the calls: the same pages as the memory store', () => {
    const dir = nextDir();
    const db = openTestDatabase(dir);
    const sqlite = createSqliteTraceStore({ db, vault: createVault({ dir }) });
    const memory = createMemoryTraceStore();
    // One session of many calls among many of one: the walk reads SESSION_WALK_ROWS calls a chunk.
    const calls = Array.from({ length: SESSION_LOOKUP_MAX + SESSION_WALK_ROWS }, (_, i) =>
      makeTrace({ sessionId: i <= SESSION_LOOKUP_MAX ? `Fleet-${i}` : i % 1000 === 0 ? 'fleet-big' : 'other' }),
    );
    for (const call of calls) {
      sqlite.finish(call);
      memory.finish(call);
    }
    sqlite.flush();
    indexed(db, 'fleet');
    expect(createSessionPrefixLookup(db)('FLEET-')).toBe('many');
    const pages = (store: TraceStore) => {
      const seen: string[][] = [];
      let cursor: string | undefined;
      do {
        const page = store.list({ text: 'FLEET-', limit: 200, cursor });
        expect(page.partial).toBe(false);
        seen.push(page.items.map((item) => item.id));
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      return seen;
    };
    const found = pages(sqlite);
    expect(found).toEqual(pages(memory));
    expect(found.flat()).toHaveLength(SESSION_LOOKUP_MAX + 1 + 4);
    sqlite.close();
    memory.close();
  }, 60_000);

  it('stops a page after MAX_SEARCH_CANDIDATES rows that hold the trigrams but not the text, and goes on with the cursor', () => {
    const dir = nextDir();
    const db = openTestDatabase(dir);
    const store = createSqliteTraceStore({ db, vault: createVault({ dir }) });
    const match = makeTrace({ arguments: { note: 'queue worker' } });
    store.finish(match);
    // Every trigram of "queue worker", never side by side.
    for (let i = 0; i < MAX_SEARCH_CANDIDATES * 1.5; i++)
      store.finish(makeTrace({ arguments: { note: 'queue x worker' } }));
    store.flush();
    indexed(db, 'queue');
    const first = store.list({ text: 'queue worker' });
    expect(first).toMatchObject({ items: [], partial: true });
    const second = store.list({ text: 'queue worker', cursor: first.nextCursor ?? undefined });
    expect(second.items.map((item) => item.id)).toEqual([match.id]);
    expect(second).toMatchObject({ partial: false, nextCursor: null });
    store.close();
  }, 60_000);

  it('uses the index from three characters (code points) on, and quotes what FTS5 would parse', () => {
    expect(usesSearchIndex('ab')).toBe(false);
    expect(usesSearchIndex('🚀é')).toBe(false);
    expect(usesSearchIndex('🚀éx')).toBe(true);
    expect(searchIndexQuery('a"b OR c')).toBe('"a""b" """b " "b O" " OR" "OR " "R c"');
    expect(searchIndexQuery('abcdefghijklmn')).toBe('"abc" "def" "ghi" "jkl" "lmn"');
    // The ids' tails: every trigram of the text's last 8 characters.
    expect(idSearchQuery('e7a3e465')).toBe('"e7a" "7a3" "a3e" "3e4" "e46" "465"');
    expect(idSearchQuery('abcdefghijklmn')).toBe('"ghi" "hij" "ijk" "jkl" "klm" "lmn"');
  });
});
