import { describe, expect, it } from 'vitest';
import { createManualClock } from '../executor/manual-clock';
import { createGroupCommit, type GroupCommitOptions } from './group-commit';
import { isStoreWideError } from './store-faults';

interface Write {
  id: string;
  value: number;
}

/** A group commit over an in-memory "disk" whose commits can be made to fail. */
function setup(options: Partial<GroupCommitOptions<Write>> = {}) {
  const clock = createManualClock();
  const disk = new Map<string, number>();
  const commits: string[][] = [];
  const errors: unknown[] = [];
  let failing: Error | null = null;
  const group = createGroupCommit<Write>({
    commit(writes) {
      if (failing) throw failing;
      commits.push(writes.map((w) => w.id));
      for (const w of writes) disk.set(w.id, w.value);
    },
    timers: clock,
    onError: (error) => errors.push(error),
    ...options,
  });
  const add = (id: string, value = 1) => group.add(id, { id, value });
  return {
    clock,
    disk,
    commits,
    errors,
    group,
    add,
    fail: (error: Error | null) => {
      failing = error;
    },
  };
}

/** Whether the promise has settled, without waiting for it. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(
    () => {
      done = true;
    },
    () => {
      done = true;
    },
  );
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return done;
}

describe('group commit', () => {
  it('commits a deferred write with the next commit, or by itself once deferMs has passed', async () => {
    const { clock, disk, commits, group, add } = setup({ maxBatch: 3, deferMs: 100 });
    group.defer('a', { id: 'a', value: 1 });
    await clock.advance(99);
    expect(disk.size).toBe(0);
    // A newer write of the same key replaces it in the one commit that carries both.
    group.defer('b', { id: 'b', value: 1 });
    const done = add('a', 2);
    clock.advance(0);
    await done;
    expect(commits).toEqual([['a', 'b']]);
    expect(disk.get('a')).toBe(2);
    // At maxBatch queued writes, deferred ones commit too.
    for (const id of ['c', 'd', 'e']) group.defer(id, { id, value: 1 });
    expect(commits).toEqual([
      ['a', 'b'],
      ['c', 'd', 'e'],
    ]);
    // Alone, a deferred write (a slow call's start) is on disk deferMs later.
    group.defer('f', { id: 'f', value: 1 });
    await clock.advance(99);
    expect(disk.has('f')).toBe(false);
    await clock.advance(1);
    expect(disk.has('f')).toBe(true);
  });

  it("does not make a write someone waits for wait for a deferred write's timer", async () => {
    const { clock, commits, group, add } = setup({ deferMs: 100 });
    group.defer('slow', { id: 'slow', value: 1 });
    const done = add('quick');
    await clock.advance(0);
    expect(await settled(done)).toBe(true);
    expect(commits).toEqual([['slow', 'quick']]);
    await clock.advance(1_000);
    expect(commits).toHaveLength(1);
  });

  it('commits what is added in the same turn once, then tells every caller', async () => {
    const { clock, disk, commits, add } = setup();
    const waits = ['a', 'b', 'c'].map((id) => add(id));
    expect(disk.size).toBe(0);
    expect(await settled(waits[0] as Promise<void>)).toBe(false);
    await clock.advance(0);
    expect(commits).toEqual([['a', 'b', 'c']]);
    for (const wait of waits) expect(await settled(wait)).toBe(true);
    await Promise.all(waits);
  });

  it('resolves a caller only after its write is on disk', async () => {
    const { clock, disk, add } = setup();
    const seen: (number | undefined)[] = [];
    const done = add('a', 7).then(() => seen.push(disk.get('a')));
    await clock.advance(0);
    await done;
    expect(seen).toEqual([7]);
  });

  it('waits for a configured window, then commits what arrived meanwhile', async () => {
    const { clock, commits, add } = setup({ windowMs: 3 });
    const first = add('a');
    await clock.advance(2);
    const second = add('b');
    expect(commits).toEqual([]);
    await clock.advance(1);
    expect(commits).toEqual([['a', 'b']]);
    await Promise.all([first, second]);
    const third = add('c');
    await clock.advance(3);
    expect(commits).toEqual([['a', 'b'], ['c']]);
    await third;
  });

  it('merges writes to the same key into one', async () => {
    const merges: [number, number][] = [];
    const { clock, disk, commits, add } = setup({
      merge: (queued, next) => {
        merges.push([queued.value, next.value]);
        return { id: next.id, value: queued.value + next.value };
      },
    });
    const waits = [add('a', 1), add('a', 2), add('b', 5)];
    await clock.advance(0);
    await Promise.all(waits);
    expect(commits).toEqual([['a', 'b']]);
    expect(merges).toEqual([[1, 2]]);
    expect(disk.get('a')).toBe(3);
  });

  it('commits at once at maxBatch writes', async () => {
    const { clock, commits, add, group } = setup({ maxBatch: 3 });
    const waits = [add('a'), add('b'), add('c')];
    expect(commits).toEqual([['a', 'b', 'c']]);
    await Promise.all(waits);
    add('d');
    expect(group.size).toBe(1);
    await clock.advance(0);
    expect(group.size).toBe(0);
  });

  it('addNow commits before it returns, taking the queue along', async () => {
    const { clock, disk, commits, add, group } = setup();
    const queued = add('a');
    group.addNow('b', { id: 'b', value: 2 });
    expect(disk.get('b')).toBe(2);
    expect(commits).toEqual([['a', 'b']]);
    await queued;
    expect(clock.pendingTimers()).toBe(0);
  });

  it('flush commits at once and cancels the timer', async () => {
    const { clock, commits, add, group } = setup({ windowMs: 5 });
    const wait = add('a');
    group.flush();
    expect(commits).toEqual([['a']]);
    expect(clock.pendingTimers()).toBe(0);
    await wait;
    group.flush();
    expect(commits).toHaveLength(1);
  });

  it('rejects the callers of a failed commit, keeps their writes queued and retries them', async () => {
    const { clock, disk, commits, errors, add, group, fail } = setup({ retryMs: 1000 });
    const boom = new Error('disk I/O error');
    fail(boom);
    const wait = add('a', 1);
    await clock.advance(0);
    await expect(wait).rejects.toBe(boom);
    expect(errors).toEqual([boom]);
    expect(group.size).toBe(1);
    // Written while the retry is pending: a newer value of a queued key wins.
    const later = add('a', 2);
    fail(null);
    await clock.advance(999);
    expect(disk.size).toBe(0);
    await clock.advance(1);
    await later;
    expect(commits).toEqual([['a']]);
    expect(disk.get('a')).toBe(2);
  });

  it('throws from flush and addNow when the commit fails, writes kept', () => {
    const { group, add, fail } = setup();
    fail(new Error('locked'));
    add('a');
    expect(() => group.flush()).toThrow('locked');
    expect(() => group.addNow('b', { id: 'b', value: 1 })).toThrow('locked');
    expect(group.size).toBe(2);
    fail(null);
    group.flush();
    expect(group.size).toBe(0);
  });

  it('never leaves an unhandled rejection when a caller ignores the promise', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const { clock, add, fail } = setup();
      fail(new Error('ignored'));
      add('a');
      await clock.advance(0);
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

/** A SQLite-like error: `code` says whether it is the database's or one write's. */
function sqliteError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('group commit failing soft', () => {
  const locked = () => sqliteError('SQLITE_BUSY', 'database is locked');

  /** A "disk" that can be locked as a whole, and writes that fail by themselves (`poison`). */
  function faulty(options: Partial<GroupCommitOptions<Write>> = {}) {
    const clock = createManualClock();
    const disk = new Map<string, number>();
    const attempts: string[][] = [];
    const events: string[] = [];
    const poison = new Set<string>();
    let lockedNow = false;
    const group = createGroupCommit<Write>({
      commit(writes) {
        attempts.push(writes.map((w) => w.id));
        if (lockedNow) throw locked();
        const bad = writes.find((w) => poison.has(w.id));
        if (bad) throw sqliteError('SQLITE_CONSTRAINT_TRIGGER', `poisoned ${bad.id}`);
        for (const w of writes) disk.set(w.id, w.value);
      },
      timers: clock,
      isStoreWide: isStoreWideError,
      onError: (error, failures) => events.push(`error ${failures} ${(error as Error).message}`),
      onRecover: (failures) => events.push(`recovered after ${failures}`),
      onSetAside: (key) => events.push(`aside ${key}`),
      ...options,
    });
    return {
      clock,
      disk,
      attempts,
      events,
      poison,
      group,
      add: (id: string, value = 1) => group.add(id, { id, value }),
      lock: (on: boolean) => {
        lockedNow = on;
      },
    };
  }

  it('retries a failed commit on the timers with doubling backoff, capped, and tries nothing in between', async () => {
    const { clock, disk, attempts, events, group, add, lock } = faulty({ retryMs: 50, maxRetryMs: 400 });
    lock(true);
    const first = add('a');
    await clock.advance(0);
    await expect(first).rejects.toThrow('database is locked');
    expect(group.failing).toBe(true);
    // Retries at +50, +100, +200, then every 400 (the cap).
    const tries = () => attempts.length;
    const at: number[] = [];
    let elapsed = 0;
    for (const step of [49, 1, 99, 1, 199, 1, 399, 1, 399, 1]) {
      const before = tries();
      await clock.advance(step);
      elapsed += step;
      if (tries() > before) at.push(elapsed);
    }
    expect(at).toEqual([50, 150, 350, 750, 1150]);
    expect(group.retryDelayMs).toBe(400);
    // While failing, nothing but the retry timer commits: not add (even at maxBatch), defer, tryFlush.
    const before = tries();
    const waits = Array.from({ length: 300 }, (_, i) => add(`b${i}`));
    group.defer('c', { id: 'c', value: 1 });
    group.tryFlush();
    expect(tries()).toBe(before);
    // A write that must be durable at once is refused at once, with the last error, untried.
    expect(() => group.addNow('d', { id: 'd', value: 1 })).toThrow('database is locked');
    expect(tries()).toBe(before);
    expect(group.size).toBe(1 + 300 + 1 + 1);
    // The lock goes: the next retry commits everything, in one commit, and the callers are told.
    lock(false);
    await clock.advance(400);
    await Promise.all(waits);
    expect(tries()).toBe(before + 1);
    expect(disk.size).toBe(303);
    expect(group.failing).toBe(false);
    expect(group.size).toBe(0);
    expect(events.filter((e) => e.startsWith('error'))).toHaveLength(6);
    expect(events.at(-1)).toBe('recovered after 6');
    // Healthy again: the window timer is back.
    const after = add('e');
    await clock.advance(0);
    await after;
    expect(disk.has('e')).toBe(true);
  });

  it('makes a write added while commits fail wait for the next retry, resolved when it succeeds', async () => {
    const { clock, disk, add, lock } = faulty({ retryMs: 50 });
    lock(true);
    void add('a');
    await clock.advance(0);
    const later = add('b');
    lock(false);
    await clock.advance(49);
    expect(disk.size).toBe(0);
    await clock.advance(1);
    await later;
    expect([...disk.keys()]).toEqual(['a', 'b']);
  });

  it('halves a batch around a write that fails by itself, sets it aside and commits the rest', async () => {
    const { clock, disk, attempts, events, poison, group, add } = faulty({ setAsideRetryMs: 60_000 });
    poison.add('w5');
    const ids = Array.from({ length: 8 }, (_, i) => `w${i}`);
    const waits = ids.map((id) => add(id));
    await clock.advance(0);
    // The batch's callers are told it is done; the one whose write was set aside can tell.
    await Promise.all(waits);
    expect((group.setAsideError('w5') as Error).message).toBe('poisoned w5');
    expect(group.setAsideError('w4')).toBeUndefined();
    expect([...disk.keys()].sort()).toEqual(ids.filter((id) => id !== 'w5'));
    // One try of 8, then halves, depth first, down to the one: 7 commits, not 8 one by one.
    expect(attempts).toEqual([
      ids,
      ['w0', 'w1', 'w2', 'w3'],
      ['w4', 'w5', 'w6', 'w7'],
      ['w4', 'w5'],
      ['w4'],
      ['w5'],
      ['w6', 'w7'],
    ]);
    expect(group.setAside).toBe(1);
    expect(group.setAsideKeys(3)).toEqual(['w5']);
    expect(group.failing).toBe(false);
    expect(events).toEqual(['aside w5']);
    // It never holds up the others: later writes commit in one go without it.
    const next = add('x');
    await clock.advance(0);
    await next;
    expect(attempts.at(-1)).toEqual(['x']);
    // Tried again alone, rarely: still failing, it stays aside; once it can be written, it is.
    await clock.advance(60_000);
    expect(attempts.at(-1)).toEqual(['w5']);
    expect(group.setAside).toBe(1);
    poison.clear();
    await clock.advance(60_000);
    expect(disk.has('w5')).toBe(true);
    expect(group.setAside).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('takes a set-aside write back into the queue when a newer write of its key arrives', async () => {
    const { clock, disk, poison, group, add } = faulty({
      merge: (queued, next) => ({ id: next.id, value: queued.value + next.value }),
    });
    poison.add('a');
    void add('a', 1);
    await clock.advance(0);
    expect(group.setAside).toBe(1);
    poison.clear();
    const newer = add('a', 10);
    expect(group.setAside).toBe(0);
    await clock.advance(0);
    await newer;
    expect(disk.get('a')).toBe(11);
  });

  it('throws from addNow when its own write is set aside, having committed the others', async () => {
    const { disk, poison, group, add } = faulty();
    poison.add('bad');
    const other = add('ok');
    expect(() => group.addNow('bad', { id: 'bad', value: 1 })).toThrow('poisoned bad');
    await other;
    expect(disk.has('ok')).toBe(true);
  });

  it("stops halving at the database's error and keeps what is left queued, in order", async () => {
    let commits = 0;
    const clock = createManualClock();
    const disk: string[] = [];
    const group = createGroupCommit<Write>({
      commit(writes) {
        commits += 1;
        // The whole batch and its first half fail on a row; then the disk is full, once.
        if (commits === 1 || commits === 2) throw sqliteError('SQLITE_CONSTRAINT_CHECK', 'bad row');
        if (commits === 3) throw sqliteError('SQLITE_FULL', 'database or disk is full');
        for (const w of writes) disk.push(w.id);
      },
      timers: clock,
      isStoreWide: isStoreWideError,
      retryMs: 50,
    });
    const waits = ['w0', 'w1', 'w2', 'w3'].map((id) => group.add(id, { id, value: 1 }));
    await clock.advance(0);
    for (const wait of waits) await expect(wait).rejects.toThrow('database or disk is full');
    expect(group.failing).toBe(true);
    expect(group.size).toBe(4);
    await clock.advance(50);
    expect(disk).toEqual(['w0', 'w1', 'w2', 'w3']);
    expect(group.failing).toBe(false);
  });

  it('close tries a last commit and returns what it could not write, leaving no timer', async () => {
    const { clock, poison, group, add, lock } = faulty();
    poison.add('bad');
    void add('bad');
    await clock.advance(0);
    lock(true);
    void add('queued');
    await clock.advance(0);
    expect(group.failing).toBe(true);
    const lost = group.close();
    expect(lost.map((write) => write.key).sort()).toEqual(['bad', 'queued']);
    expect(clock.pendingTimers()).toBe(0);
    await expect(add('late')).rejects.toThrow('closed');
  });

  it('close commits what it can', async () => {
    const { clock, disk, group, add } = faulty({ windowMs: 1_000 });
    void add('a');
    group.defer('b', { id: 'b', value: 1 });
    expect(group.close()).toEqual([]);
    expect([...disk.keys()]).toEqual(['a', 'b']);
    expect(clock.pendingTimers()).toBe(0);
  });
});
