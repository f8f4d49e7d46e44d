import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { createManualClock, type ManualClock } from '../executor/manual-clock';
import type { CallStatus, TraceRecord } from '../executor/types';
import { systemCommitTimers } from './commit-timers';
import { openDatabase, SERVER_BUSY_TIMEOUT_MS, type SqliteDatabase } from './open-database';
import { createSearchIndexer } from './search-indexer';
import { COMMIT_RETRY_MAX_MS, COMMIT_RETRY_MS, createSqliteTraceStore, SAME_AS_ARGUMENTS } from './sqlite-trace-store';
import { isStoreUnavailableError } from './store-faults';
import { createTempDataDir, openTestDatabase } from './test-database';
import { storedIdForms } from './trace-id';
import type { TraceStore } from './trace-store';
import { type CommittedReader, describeScanWindow, describeTraceStore, makeTrace, stored } from './trace-store-suite';
import { createVault, VaultError } from './vault';

const temp = createTempDataDir();
afterAll(() => temp.remove());

let storeCount = 0;
let storeDir = '';
let storeDb: SqliteDatabase | null = null;
function createStore(timeRangePlan?: 'created-at-index' | 'seq-scan'): TraceStore {
  storeCount += 1;
  storeDir = path.join(temp.dir, `store-${storeCount}`);
  storeDb = openTestDatabase(storeDir);
  return createSqliteTraceStore({
    db: storeDb,
    vault: createVault({ dir: storeDir }),
    timeRangePlan,
  });
}

/** Another connection to the store just created: it sees only what was committed. */
function openCommittedReader(): CommittedReader {
  const db = openTestDatabase(storeDir);
  const status = db.prepare('SELECT status FROM tool_calls WHERE id IN (@id, @idText)').pluck();
  return { status: (id) => (status.get(storedIdForms(id)) as CallStatus | undefined) ?? null, close: () => db.close() };
}

/** Commits the store's writes and indexes every call: a search then reads the search index, not the LIKE scan above its mark. */
function indexEveryCall(store: TraceStore): void {
  store.flush();
  if (!storeDb) throw new Error('no store');
  const indexer = createSearchIndexer(storeDb, systemCommitTimers);
  indexer.indexSome(Number.MAX_SAFE_INTEGER);
  indexer.stop();
}

// Searches through the search index here; above its mark (the calls not indexed yet) in the two below.
describeTraceStore('sqlite', () => createStore(), openCommittedReader, { beforeSearch: indexEveryCall });
// Time-range queries take one of two plans; both must give the same answers.
describeTraceStore(
  'sqlite, time ranges through the created_at index',
  () => createStore('created-at-index'),
  openCommittedReader,
);
describeTraceStore('sqlite, time ranges by seq scan', () => createStore('seq-scan'), openCommittedReader);

describe('sqlite trace store', () => {
  let dir: string;
  beforeEach(() => {
    storeCount += 1;
    dir = path.join(temp.dir, `case-${storeCount}`);
  });

  function open() {
    const db = openTestDatabase(dir);
    return { db, store: createSqliteTraceStore({ db, vault: createVault({ dir }) }) };
  }

  it('keeps traces across a restart, raw arguments included', () => {
    const trace = makeTrace({ rawArguments: '{"expression":"6 * 7"}' });
    const first = open();
    first.store.finish(trace);
    first.store.close();
    const second = open();
    expect(second.store.get(trace.id)).toEqual(stored(trace));
    second.store.close();
  });

  it('numbers the calls of a session on from where the previous process stopped', async () => {
    const first = open();
    const calls = [makeTrace({ sessionId: 'chat' }), makeTrace({ sessionId: 'chat' })];
    for (const trace of calls) await first.store.finish(trace);
    first.store.close();
    const second = open();
    const later = makeTrace({ sessionId: 'chat', status: 'running', finishedAt: null, latencyMs: null });
    second.store.begin(later);
    await second.store.finish({ ...later, status: 'succeeded' });
    const other = makeTrace({ sessionId: 'another' });
    await second.store.finish(other);
    expect([...calls, later, other].map((trace) => second.store.get(trace.id)?.sessionSeq)).toEqual([1, 2, 3, 1]);
    second.store.close();
  });

  it('keeps the first number of a call taken up again after a restart', () => {
    const waiting = makeTrace({ sessionId: 'chat', status: 'awaiting_approval', finishedAt: null, latencyMs: null });
    const first = open();
    first.store.begin(makeTrace({ sessionId: 'chat' }));
    first.store.begin(waiting);
    first.store.close();
    const second = open();
    // The executor begins a resumed call again; the row keeps its number.
    second.store.begin(waiting);
    second.store.finish({ ...waiting, status: 'succeeded' });
    expect(second.store.get(waiting.id)?.sessionSeq).toBe(2);
    second.store.close();
  });

  it('finishes a call begun by a previous process', () => {
    const trace = makeTrace({ status: 'awaiting_approval', finishedAt: null, latencyMs: null });
    const first = open();
    first.store.begin(trace);
    first.store.close();
    const second = open();
    const approved = { ...trace, status: 'succeeded' as const, finishedAt: trace.createdAt + 5, latencyMs: 5 };
    second.store.finish(approved);
    expect(second.store.get(trace.id)).toEqual(stored(approved));
    expect(second.store.list().items).toHaveLength(1);
    second.store.close();
  });

  it('does not resurrect a call another process marked interrupted', () => {
    const first = open();
    const trace = makeTrace({ status: 'running', sideEffect: 'exec', finishedAt: null, latencyMs: null });
    first.store.begin(trace);
    // A second process starts on the same file (the first one looks dead) and marks the call.
    const second = open();
    expect(second.store.markInterrupted(1_700_000_999_000)).toBe(1);
    // The first process was alive after all and finishes the call: through the UPDATE (it
    // sealed the arguments itself) and through the upsert (other raw arguments).
    first.store.finish({ ...trace, status: 'succeeded', finishedAt: trace.createdAt + 5, latencyMs: 5 });
    first.store.flush();
    first.store.finish({ ...trace, status: 'failed', rawArguments: '{"other":1}' });
    first.store.flush();
    expect(second.store.get(trace.id)).toMatchObject({ status: 'interrupted', finishedAt: 1_700_000_999_000 });
    expect(second.store.openSealedArguments(trace.id)?.rawArguments).toBe(trace.rawArguments);
    first.store.close();
    second.store.close();
  });

  it('never writes the raw arguments in plaintext, in the database file or its WAL', () => {
    const secret = 'sk-live-7f3a9c1e5b2d4f60a8e1c3b5d7f9e2a4';
    const { db, store } = open();
    const trace = makeTrace({
      arguments: { apiKey: '[REDACTED]', prompt: 'hello' },
      rawArguments: JSON.stringify({ apiKey: secret, prompt: 'hello' }),
      status: 'running',
    });
    store.begin(trace);
    store.update({ ...trace, status: 'awaiting_approval' });
    store.finish({ ...trace, status: 'succeeded' });
    store.finish(makeTrace({ rawArguments: `{"again":"${secret}"}`, arguments: { again: '[REDACTED]' } }));
    expect(store.openSealedArguments(trace.id)?.rawArguments).toContain(secret);

    // Check the bytes twice: while the rows live in the WAL, and after they were checkpointed
    // into the database file. The redacted arguments must be there, proving we read real rows.
    const files = ['toolscope.db', 'toolscope.db-wal', 'toolscope.db-shm'].map((name) => path.join(dir, name));
    const bytesOnDisk = () =>
      Buffer.concat(files.filter((file) => fs.existsSync(file)).map((file) => fs.readFileSync(file)));
    expect(fs.statSync(files[1] ?? '').size).toBeGreaterThan(0);
    expect(bytesOnDisk().includes('"prompt":"hello"')).toBe(true);
    expect(bytesOnDisk().includes('sk-live-')).toBe(false);
    db.pragma('wal_checkpoint(TRUNCATE)');
    store.close();
    expect(fs.readFileSync(files[0] ?? '').includes('"prompt":"hello"')).toBe(true);
    expect(bytesOnDisk().includes('sk-live-')).toBe(false);
  });

  it('seals no copy of raw arguments that redaction left as they were (the stored text is them)', () => {
    const { db, store } = open();
    const plain = makeTrace({ arguments: { path: 'a.txt' }, rawArguments: '{"path":"a.txt"}' });
    const spaced = makeTrace({ arguments: { path: 'a.txt' }, rawArguments: '{"path": "a.txt"}' });
    store.finish(plain);
    store.finish(spaced);
    store.flush();
    const sealedOf = (id: string) =>
      db.prepare('SELECT sealed_arguments FROM tool_calls WHERE id = ?').pluck().get(id) as Buffer;
    expect(sealedOf(plain.id)).toEqual(SAME_AS_ARGUMENTS);
    expect(sealedOf(spaced.id).length).toBeGreaterThan(28);
    expect(store.openSealedArguments(plain.id)).toEqual({ rawArguments: '{"path":"a.txt"}', rawEditedArguments: null });
    expect(store.openSealedArguments(spaced.id)?.rawArguments).toBe('{"path": "a.txt"}');
    store.close();
  });

  it('fails loudly when a sealed value was altered or moved to another row', () => {
    const { db, store } = open();
    // Raw arguments other than their redacted text, so they are sealed.
    const [a, b] = [
      makeTrace({ rawArguments: '{"expression": "1 + 1"}' }),
      makeTrace({ rawArguments: '{"expression": "2"}' }),
    ];
    if (!a || !b) throw new Error('fixtures');
    store.finish(a);
    store.finish(b);
    store.flush();
    const sealedOf = (id: string) =>
      (db.prepare('SELECT sealed_arguments FROM tool_calls WHERE id = ?').pluck().get(id) as Buffer) ?? Buffer.alloc(0);
    const setSealed = db.prepare('UPDATE tool_calls SET sealed_arguments = ? WHERE id = ?');

    setSealed.run(sealedOf(a.id), b.id);
    expect(() => store.openSealedArguments(b.id)).toThrow(VaultError);
    // Reading the trace opens nothing sealed, so it still reads.
    expect(store.get(b.id)?.id).toBe(b.id);

    const flipped = Buffer.from(sealedOf(a.id));
    flipped[flipped.length - 1] = (flipped[flipped.length - 1] ?? 0) ^ 1;
    setSealed.run(flipped, a.id);
    expect(() => store.openSealedArguments(a.id)).toThrow(VaultError);
    store.close();
  });

  it('lets another connection read while one writes (WAL)', () => {
    const { db, store } = open();
    const reader = openTestDatabase(dir);
    const readerStore = createSqliteTraceStore({ db: reader, vault: createVault({ dir }) });
    store.finish(makeTrace());
    store.flush();

    // A reader inside a transaction keeps its snapshot; the writer is not blocked by it.
    reader.exec('BEGIN');
    expect(readerStore.list().items).toHaveLength(1);
    const started = performance.now();
    store.finish(makeTrace());
    store.flush();
    expect(performance.now() - started).toBeLessThan(1000);
    expect(readerStore.list().items).toHaveLength(1);
    reader.exec('COMMIT');
    expect(readerStore.list().items).toHaveLength(2);

    // And a writer's open transaction does not block readers.
    db.exec('BEGIN IMMEDIATE');
    store.finish(makeTrace());
    store.flush();
    expect(readerStore.list().items).toHaveLength(2);
    db.exec('COMMIT');
    expect(readerStore.list().items).toHaveLength(3);
    readerStore.close();
    store.close();
  });

  it('reads consistent pages while another process writes', async () => {
    const { store } = open();
    store.finish(makeTrace());
    const rows = 3000;
    const writer = spawn(
      process.execPath,
      [
        '-e',
        `const Database = require('better-sqlite3');
         const db = new Database(process.argv[1]);
         db.pragma('busy_timeout = 5000');
         const insert = db.prepare(\`INSERT INTO tool_calls (id, tool_call_id_stored, actor_stored, tool_stored, status_stored, sealed_arguments,
           created_at, stages, attempts, metadata) VALUES (?, ?, 'api', 'writer', 'succeeded', x'00', ?, '[]', '[]', '{}')\`);
         for (let i = 0; i < ${rows}; i++) insert.run('w-' + i, 'call_w' + i, Date.now());
         db.close();`,
        path.join(dir, 'toolscope.db'),
      ],
      { cwd: process.cwd(), stdio: ['ignore', 'inherit', 'inherit'] },
    );
    const exited = new Promise<number | null>((resolve) => writer.on('exit', resolve));
    let done = false;
    void exited.then(() => {
      done = true;
    });
    let reads = 0;
    let previous = 0;
    while (!done) {
      const page = store.list({ tool: 'writer', limit: 500 });
      const newest = page.items[0]?.id;
      const count = newest ? Number(newest.slice(2)) + 1 : 0;
      expect(count).toBeGreaterThanOrEqual(previous);
      previous = count;
      reads += 1;
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await exited).toBe(0);
    expect(reads).toBeGreaterThan(1);
    expect(store.list({ tool: 'writer', limit: 1 }).items[0]?.id).toBe(`w-${rows - 1}`);
    store.close();
  });
});

describe('sqlite trace store write path', () => {
  let store: TraceStore;
  afterEach(() => store.close());

  it('seals once at begin and updates without resealing', () => {
    storeCount += 1;
    const dir = path.join(temp.dir, `seal-${storeCount}`);
    let seals = 0;
    const vault = createVault({ dir });
    const countingVault = {
      ...vault,
      seal: (...args: Parameters<typeof vault.seal>) => {
        seals += 1;
        return vault.seal(...args);
      },
    };
    store = createSqliteTraceStore({ db: openTestDatabase(dir), vault: countingVault });
    // Raw arguments other than their redacted text (those are not sealed at all).
    const rawArguments = '{ "expression": "1 + 1" }';
    const trace = makeTrace({ status: 'running', rawArguments });
    store.begin(trace);
    store.update({ ...trace, status: 'awaiting_approval' });
    store.finish({ ...trace, status: 'succeeded' });
    store.flush();
    expect(seals).toBe(1);
    store.finish(makeTrace({ rawArguments }));
    store.flush();
    expect(seals).toBe(2);
    store.finish(makeTrace());
    store.flush();
    expect(seals).toBe(2);
  });
});

describe('sqlite trace store group commit', () => {
  let dir: string;
  let clock: ManualClock;
  let store: TraceStore;
  let other: ReturnType<typeof openTestDatabase>;
  beforeEach(() => {
    storeCount += 1;
    dir = path.join(temp.dir, `group-${storeCount}`);
    clock = createManualClock();
    store = createSqliteTraceStore({ db: openTestDatabase(dir), vault: createVault({ dir }), timers: clock });
    other = openTestDatabase(dir);
  });
  afterEach(() => {
    store.close();
    other.close();
  });
  const onDisk = (id: string) =>
    other.prepare('SELECT status FROM tool_calls WHERE id = ?').pluck().get(id) as string | undefined;

  it('commits the start of a call with a side effect before returning', () => {
    const trace = makeTrace({ status: 'running', sideEffect: 'exec' });
    store.begin(trace);
    expect(onDisk(trace.id)).toBe('running');
  });

  it('resolves an update (a pending approval, a decision) only once it is committed', async () => {
    const trace = makeTrace({ status: 'running', sideEffect: 'none' });
    store.begin(trace);
    let seenWhenResolved: string | undefined;
    const updated = Promise.resolve(store.update({ ...trace, status: 'awaiting_approval' })).then(() => {
      seenWhenResolved = onDisk(trace.id);
    });
    await clock.advance(0);
    await updated;
    expect(seenWhenResolved).toBe('awaiting_approval');
  });

  it('writes a slow side-effect-free call to disk while it runs, so a crash leaves it interrupted', async () => {
    const trace = makeTrace({ status: 'running', sideEffect: 'read', finishedAt: null, latencyMs: null });
    store.begin(trace);
    // Deferred: a quick call's start goes to disk with its finish, as one row write...
    expect(onDisk(trace.id)).toBeUndefined();
    // ...but a call still running 100 ms later is on disk without waiting for its finish.
    await clock.advance(100);
    expect(onDisk(trace.id)).toBe('running');
  });

  it('commits side-effect-free starts and finishes at the end of the turn, and only then resolves finish', async () => {
    const trace = makeTrace({ status: 'running', sideEffect: 'read' });
    store.begin(trace);
    const finished = store.finish({ ...trace, status: 'succeeded' });
    expect(finished).toBeInstanceOf(Promise);
    let seenWhenResolved: string | undefined;
    const resolved = Promise.resolve(finished).then(() => {
      seenWhenResolved = onDisk(trace.id);
    });
    expect(onDisk(trace.id)).toBeUndefined();
    await clock.advance(0);
    await resolved;
    expect(seenWhenResolved).toBe('succeeded');
  });

  it('commits many calls finishing in the same turn together, before any of them is told', async () => {
    const traces = Array.from({ length: 50 }, (_, i) =>
      makeTrace({ status: i % 3 === 0 ? 'failed' : 'succeeded', sideEffect: 'none' }),
    );
    const committedWhenTold: number[] = [];
    const count = () => other.prepare('SELECT count(*) FROM tool_calls').pluck().get() as number;
    const waits = traces.map((trace) => {
      store.begin({ ...trace, status: 'running' });
      return Promise.resolve(store.finish(trace)).then(() => committedWhenTold.push(count()));
    });
    expect(count()).toBe(0);
    await clock.advance(0);
    await Promise.all(waits);
    expect(committedWhenTold).toEqual(traces.map(() => 50));
    for (const trace of traces) expect(onDisk(trace.id)).toBe(trace.status);
  });

  it('waits up to the configured window for others to share the commit', async () => {
    const windowed = createSqliteTraceStore({
      db: openTestDatabase(dir),
      vault: createVault({ dir }),
      timers: clock,
      commitWindowMs: 2,
    });
    const [a, b] = [makeTrace(), makeTrace()] as [TraceRecord, TraceRecord];
    const first = windowed.finish(a);
    await clock.advance(1);
    const second = windowed.finish(b);
    expect(onDisk(a.id)).toBeUndefined();
    await clock.advance(1);
    await Promise.all([first, second]);
    expect([onDisk(a.id), onDisk(b.id)]).toEqual([a.status, b.status]);
    windowed.close();
  });

  it('makes queued writes visible to its own reads', () => {
    const trace = makeTrace({ status: 'running', sideEffect: 'none' });
    store.begin(trace);
    expect(store.get(trace.id)?.status).toBe('running');
    store.finish({ ...trace, status: 'failed' });
    expect(store.list().items[0]?.status).toBe('failed');
  });

  it('commits when the queue is full, and a durable write takes the queue along', () => {
    const traces = Array.from({ length: 300 }, () => makeTrace({ sideEffect: 'none' }));
    for (const trace of traces) store.finish(trace);
    const committed = other.prepare('SELECT count(*) FROM tool_calls').pluck().get() as number;
    expect(committed).toBeGreaterThanOrEqual(256);
    store.begin(makeTrace({ status: 'running', sideEffect: 'write' }));
    expect(other.prepare('SELECT count(*) FROM tool_calls').pluck().get()).toBe(301);
  });

  it('rejects finish when the commit fails, keeps the write queued and commits it on the retry', async () => {
    const db = openTestDatabase(dir);
    db.pragma('busy_timeout = 0');
    const impatient = createSqliteTraceStore({ db, vault: createVault({ dir }), timers: clock });
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const trace = makeTrace({ sideEffect: 'none' });
      const finished = impatient.finish(trace);
      other.exec('BEGIN IMMEDIATE');
      try {
        await clock.advance(0);
        await expect(finished).rejects.toThrow(/locked|busy/i);
        expect(() => impatient.flush()).toThrow(/locked|busy/i);
      } finally {
        other.exec('COMMIT');
      }
      expect(onDisk(trace.id)).toBeUndefined();
      // Two failures in a row: the next try is COMMIT_RETRY_MS × 2 after the last.
      await clock.advance(2 * COMMIT_RETRY_MS);
      expect(onDisk(trace.id)).toBe(trace.status);
      // Said once when it failed, once when it recovered: not once per try.
      expect(errors).toHaveBeenCalledTimes(2);
      expect(String(errors.mock.calls[1]?.[0])).toMatch(/committed again/);
    } finally {
      errors.mockRestore();
      impatient.close();
    }
  });
});

describeScanWindow('sqlite', () => {
  storeCount += 1;
  const dir = path.join(temp.dir, `window-${storeCount}`);
  return createSqliteTraceStore({ db: openTestDatabase(dir), vault: createVault({ dir }), scanWindow: 10 });
});

describe('tool counts kept by triggers', () => {
  it('always equal counting the calls, whatever the sequence of writes', () => {
    storeCount += 1;
    const dir = path.join(temp.dir, `counts-${storeCount}`);
    const db = openTestDatabase(dir);
    const store = createSqliteTraceStore({ db, vault: createVault({ dir }) });
    const tools = ['a', 'b', 'c'];
    const statuses: CallStatus[] = ['running', 'succeeded', 'failed', 'denied', 'awaiting_approval'];
    const statusAt = (n: number) => statuses[n] as CallStatus;
    const live: ReturnType<typeof makeTrace>[] = [];
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let step = 0; step < 400; step++) {
      const op = random(4);
      if (op === 0 || live.length === 0) {
        const trace = makeTrace({ tool: tools[random(3)] as string, status: 'running', sideEffect: 'none' });
        store.begin(trace);
        live.push(trace);
      } else if (op === 1) {
        store.finish(makeTrace({ tool: tools[random(3)] as string, status: statusAt(random(5)) }));
      } else {
        const trace = live[random(live.length)] as ReturnType<typeof makeTrace>;
        const next = { ...trace, status: statusAt(random(5)) };
        if (op === 2) store.update(next);
        else store.finish(next);
      }
      // The plain form: a stored status reads as itself (see coded-columns.ts).
      if (step % 50 === 0) db.prepare("UPDATE tool_calls SET status_stored = 'failed' WHERE rowid % 7 = 0").run();
    }
    store.flush();
    db.prepare('DELETE FROM tool_calls WHERE rowid % 11 = 0').run();
    const counted = db
      .prepare(
        "SELECT tool, count(*) AS calls, sum(status = 'failed') AS failures FROM tool_calls GROUP BY tool ORDER BY tool",
      )
      .all() as { tool: string; calls: number; failures: number }[];
    const kept = store.toolStats().map(({ tool, calls, failures }) => ({ tool, calls, failures }));
    expect(kept).toEqual(counted.map(({ tool, calls, failures }) => ({ tool, calls, failures })));
    store.close();
  });
});

describe('sqlite trace store failing soft', () => {
  let dir: string;
  let clock: ManualClock;
  let db: SqliteDatabase;
  let store: TraceStore;
  let other: SqliteDatabase;
  let errors: MockInstance<typeof console.error>;
  /** The store's connection waits this long for a lock: long enough that a try shows in the time a call takes. */
  const BUSY_MS = 300;
  beforeEach(() => {
    storeCount += 1;
    dir = path.join(temp.dir, `soft-${storeCount}`);
    clock = createManualClock();
    db = openDatabase(path.join(dir, 'toolscope.db'), { busyTimeoutMs: BUSY_MS });
    store = createSqliteTraceStore({ db, vault: createVault({ dir }), timers: clock, maxQueued: 4 });
    other = openTestDatabase(dir);
    errors = vi.spyOn(console, 'error').mockImplementation(() => {});
  });
  afterEach(() => {
    if (other.inTransaction) other.exec('ROLLBACK');
    if (db.open) store.close();
    other.close();
    errors.mockRestore();
  });
  const onDisk = (id: string) =>
    other.prepare('SELECT status FROM tool_calls WHERE id = ?').pluck().get(id) as string | undefined;
  /** Runs `work`, and how long it held the event loop. */
  const timed = <T>(work: () => T): { value: T; ms: number } => {
    const started = performance.now();
    const value = work();
    return { value, ms: performance.now() - started };
  };

  it('keeps every read answering from what is committed while another process holds the write lock', async () => {
    const committed = makeTrace({ sessionId: 'held' });
    await Promise.all([store.finish(committed), clock.advance(0)]);
    expect(onDisk(committed.id)).toBe('succeeded');
    other.exec('BEGIN IMMEDIATE');
    const running = makeTrace({ status: 'running', sideEffect: 'read', finishedAt: null, latencyMs: null });
    store.begin(running);
    const finished = makeTrace({ sessionId: 'held' });
    const finishing = store.finish(finished);
    await clock.advance(0);
    await expect(finishing).rejects.toThrow(/locked/);
    expect(store.health()).toMatchObject({
      status: 'degraded',
      queued: 2,
      lastError: { code: 'SQLITE_BUSY', message: 'database is locked' },
    });
    // Every read answers, from the committed rows, without trying a commit (each try would wait BUSY_MS).
    const reads = timed(() => {
      for (let i = 0; i < 5; i++) {
        expect(store.list().items.map((item) => item.id)).toEqual([committed.id]);
        expect(store.get(committed.id)?.status).toBe('succeeded');
        expect(store.get(finished.id)).toBeNull();
        expect(store.listSessions().items.map((session) => session.id)).toEqual(['held']);
        expect(store.getSession('held')?.calls).toBe(1);
        expect(store.sessionCalls('held', 10).calls).toHaveLength(1);
        expect(store.toolStats().map((stats) => stats.calls)).toEqual([1]);
        expect(store.tools()).toEqual(['calculator']);
        expect(store.adjacent(committed.id)).toEqual({ newer: null, older: null });
        expect(store.replays(committed.id)).toEqual([]);
        expect(store.openSealedArguments(committed.id)?.rawArguments).toBe(committed.rawArguments);
        expect(store.assistantMessages(['none']).size).toBe(0);
        store.tryFlush();
      }
    });
    expect(reads.ms).toBeLessThan(BUSY_MS);
    // A call with a side effect is refused its start at once, untried: it will not run unrecorded.
    const write = timed(() => () => store.begin(makeTrace({ status: 'running', sideEffect: 'write' })));
    const refused = timed(() => expect(write.value).toThrow(/locked/));
    expect(refused.ms).toBeLessThan(BUSY_MS);
    expect(store.health().queued).toBe(3);

    // It lets go: the next retry commits everything queued, and the store is ok again.
    other.exec('COMMIT');
    await clock.advance(COMMIT_RETRY_MAX_MS);
    expect(onDisk(running.id)).toBe('running');
    expect(onDisk(finished.id)).toBe('succeeded');
    expect(store.list().items).toHaveLength(4);
    expect(store.health()).toMatchObject({ status: 'ok', queued: 0, lastError: { code: 'SQLITE_BUSY' } });
  });

  it('admits new calls until maxQueued writes wait on a failing database, then refuses them with when to retry', async () => {
    other.exec('BEGIN IMMEDIATE');
    for (let i = 0; i < 3; i++) void store.finish(makeTrace());
    await clock.advance(0);
    expect(() => store.admit()).not.toThrow();
    void store.finish(makeTrace());
    let refusal: unknown;
    try {
      store.admit();
    } catch (error) {
      refusal = error;
    }
    expect(isStoreUnavailableError(refusal)).toBe(true);
    expect(refusal).toMatchObject({ code: 'STORE_UNAVAILABLE', retryAfterS: 1 });
    expect((refusal as Error).message).toMatch(/4 trace writes wait.*SQLITE_BUSY/);
    other.exec('COMMIT');
    await clock.advance(COMMIT_RETRY_MAX_MS);
    expect(() => store.admit()).not.toThrow();
    expect(store.list().items).toHaveLength(4);
  });

  it('waits only a short busy timeout per try in the server (the event loop never stands still for seconds)', () => {
    const server = openDatabase(path.join(dir, 'toolscope.db'), { busyTimeoutMs: SERVER_BUSY_TIMEOUT_MS });
    const serverStore = createSqliteTraceStore({ db: server, vault: createVault({ dir }), timers: clock });
    try {
      serverStore.begin(makeTrace({ status: 'running', sideEffect: 'none' }));
      other.exec('BEGIN IMMEDIATE');
      const failed = timed(() => {
        try {
          serverStore.flush();
          return null;
        } catch (error) {
          return error;
        }
      });
      expect(failed.value).toMatchObject({ code: 'SQLITE_BUSY' });
      // It did wait (a lock held for a moment is ridden out), and no more than tens of ms.
      expect(failed.ms).toBeGreaterThanOrEqual(SERVER_BUSY_TIMEOUT_MS * 0.8);
      expect(failed.ms).toBeLessThan(1000);
      other.exec('ROLLBACK');
    } finally {
      serverStore.close();
    }
  });

  it('keeps writes on a full disk and commits them once there is room', async () => {
    const before = makeTrace();
    await Promise.all([store.finish(before), clock.advance(0)]);
    // The database may not grow: a page more is a full disk.
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true })}`);
    const big = makeTrace({ output: { text: 'x'.repeat(200_000) } });
    const finishing = store.finish(big);
    await clock.advance(0);
    await expect(finishing).rejects.toMatchObject({ code: 'SQLITE_FULL' });
    expect(store.health()).toMatchObject({ status: 'degraded', queued: 1, lastError: { code: 'SQLITE_FULL' } });
    expect(store.health().diskFreeBytes).toBeGreaterThan(0);
    expect(store.list().items.map((item) => item.id)).toEqual([before.id]);
    db.pragma('max_page_count = 1073741823');
    await clock.advance(COMMIT_RETRY_MAX_MS);
    expect(onDisk(big.id)).toBe('succeeded');
    expect(store.health().status).toBe('ok');
  });

  it('keeps writes while the database is read-only and commits them once it is writable', async () => {
    db.pragma('query_only = ON');
    const trace = makeTrace();
    const finishing = store.finish(trace);
    await clock.advance(0);
    await expect(finishing).rejects.toMatchObject({ code: 'SQLITE_READONLY' });
    expect(store.list().items).toEqual([]);
    expect(store.health()).toMatchObject({ status: 'degraded', lastError: { code: 'SQLITE_READONLY' } });
    db.pragma('query_only = OFF');
    await clock.advance(COMMIT_RETRY_MAX_MS);
    expect(onDisk(trace.id)).toBe('succeeded');
  });

  it('isolates a write that fails by itself: the others are committed, it is set aside, named, and retried', async () => {
    // A trigger refuses one call's row, on insert and on update alike.
    for (const event of ['INSERT', 'UPDATE']) {
      db.exec(`CREATE TEMP TRIGGER poison_${event} BEFORE ${event} ON tool_calls
        WHEN NEW.metadata LIKE '%poison%' BEGIN SELECT RAISE(ABORT, 'poisoned row'); END`);
    }
    const poisoned = makeTrace({ metadata: { poison: true } });
    const others = Array.from({ length: 6 }, () => makeTrace());
    const waits = [...others.slice(0, 3), poisoned, ...others.slice(3)].map((trace) => store.finish(trace));
    await clock.advance(0);
    await Promise.all(waits);
    for (const trace of others) expect(onDisk(trace.id)).toBe('succeeded');
    expect(onDisk(poisoned.id)).toBeUndefined();
    const health = store.health();
    expect(health).toMatchObject({ status: 'degraded', queued: 1, lastError: { code: 'SQLITE_CONSTRAINT_TRIGGER' } });
    expect(health.lastError?.message).toMatch(new RegExp(`1 write set aside.*${poisoned.id}.*poisoned row`));
    expect(errors.mock.calls.some((call) => String(call[0]).includes(`${poisoned.id} fails by itself`))).toBe(true);
    // It never holds up the others, and an update that must be durable is told it is not.
    const later = makeTrace();
    await Promise.all([store.finish(later), clock.advance(0)]);
    expect(onDisk(later.id)).toBe('succeeded');
    const pending = makeTrace({ status: 'awaiting_approval', metadata: { poison: true }, finishedAt: null });
    const update = expect(store.update(pending)).rejects.toThrow('poisoned row');
    await clock.advance(0);
    await update;
    // Once it can be written, the rare retry writes it, and the store is ok again.
    db.exec('DROP TRIGGER poison_INSERT; DROP TRIGGER poison_UPDATE');
    await clock.advance(60_000);
    expect(onDisk(poisoned.id)).toBe('succeeded');
    expect(onDisk(pending.id)).toBe('awaiting_approval');
    expect(store.health()).toMatchObject({ status: 'ok', queued: 0 });
  });

  it('queues an assistant message with the calls, so a locked database does not fail the request', async () => {
    other.exec('BEGIN IMMEDIATE');
    const message = { text: 'I will add.', model: 'm', truncated: false };
    store.saveAssistantMessage({ batchId: 'b1', sessionId: 's', createdAt: 1, message });
    void store.finish(makeTrace({ batchId: 'b1' }));
    await clock.advance(0);
    expect(store.assistantMessages(['b1']).size).toBe(0);
    other.exec('COMMIT');
    await clock.advance(COMMIT_RETRY_MAX_MS);
    expect(store.assistantMessages(['b1']).get('b1')).toEqual(message);
  });

  it('closes promptly on a failing database, saying loudly which writes are lost', async () => {
    other.exec('BEGIN IMMEDIATE');
    const trace = makeTrace();
    void store.finish(trace);
    await clock.advance(0);
    const closing = timed(() => store.close());
    expect(closing.ms).toBeLessThan(BUSY_MS * 3);
    expect(db.open).toBe(false);
    expect(clock.pendingTimers()).toBe(0);
    const said = errors.mock.calls.map((call) => String(call[0])).find((line) => line.includes('LOST'));
    expect(said).toMatch(new RegExp(`1 trace writes.*SQLITE_BUSY.*LOST: ${trace.id}`));
  });
});
