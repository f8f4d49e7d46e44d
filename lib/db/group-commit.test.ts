import { describe, expect, it } from 'vitest';
import { createManualClock } from '../executor/manual-clock';
import { createGroupCommit, type GroupCommitOptions } from './group-commit';

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
