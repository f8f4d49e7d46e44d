import { afterEach, describe, expect, it } from 'vitest';
import { crowding } from '../hardening/testing/machine-pace';
import { createWorkerPool, type WorkerPool, type WorkerPoolOptions } from './worker-pool';

interface Job {
  n?: number;
  /** Loop forever: synchronous work nothing but termination can stop. */
  spin?: boolean;
  throws?: string;
  exit?: boolean;
  hog?: boolean;
}

/** Answers n * 2 and the worker's thread id, so a test can tell a replaced worker from a reused one. */
const HANDLER = `(() => {
  const { threadId } = require('node:worker_threads');
  return (job) => {
    if (job.spin) for (;;) {}
    if (job.throws) throw new Error(job.throws);
    if (job.exit) process.exit(3);
    if (job.hog) { const keep = []; for (;;) keep.push(new Array(1e5).fill(keep.length)); }
    return { value: job.n * 2, threadId };
  };
})()`;

const pools: WorkerPool<Job, { value: number; threadId: number }>[] = [];
function createPool(options: Partial<WorkerPoolOptions> = {}) {
  const pool = createWorkerPool<Job, { value: number; threadId: number }>({
    handler: HANDLER,
    deadlineMs: 300,
    ...options,
  });
  pools.push(pool);
  return pool;
}

/**
 * Resolves once every worker has loaded, so timings below measure tasks, not starts. The bounds on
 * them are the reference machine's at rest, stretched by the machine's crowding (`crowding()`).
 */
async function warmed<P extends WorkerPool<Job, unknown>>(pool: P): Promise<P> {
  pool.warm();
  while (pool.stats().ready < pool.stats().live) await new Promise((resolve) => setTimeout(resolve, 10));
  return pool;
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.close()));
});

describe('createWorkerPool', () => {
  it('answers with the handler result, reusing its workers', async () => {
    const pool = createPool();
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, n) => pool.run({ n })));
    expect(outcomes.map((outcome) => (outcome.ok ? outcome.value.value : null))).toEqual(
      Array.from({ length: 20 }, (_, n) => n * 2),
    );
    expect(pool.stats()).toMatchObject({ started: 2, live: 2, busy: 0, queued: 0 });
  });

  it('reports a handler that throws as an error, and keeps the worker', async () => {
    const pool = await warmed(createPool());
    expect(await pool.run({ throws: 'bad input' })).toEqual({ ok: false, reason: 'error', message: 'bad input' });
    expect(await pool.run({ n: 1 })).toMatchObject({ ok: true, value: { value: 2 } });
    expect(pool.stats().started).toBe(2);
  });

  it('terminates a task at its deadline and replaces the worker', async () => {
    const pool = await warmed(createPool({ size: 1, deadlineMs: 200 }));
    const before = await pool.run({ n: 1 });
    const started = performance.now();
    const outcome = await pool.run({ spin: true });
    expect(performance.now() - started).toBeLessThan(600 * crowding());
    expect(outcome).toMatchObject({ ok: false, reason: 'deadline', message: expect.stringMatching(/200 ms deadline/) });
    const after = await pool.run({ n: 2 });
    expect(after).toMatchObject({ ok: true, value: { value: 4 } });
    expect(before.ok && after.ok && before.value.threadId !== after.value.threadId).toBe(true);
    expect(pool.stats()).toMatchObject({ started: 2, live: 1 });
  });

  it('takes the shorter of its own deadline and the one asked for', async () => {
    const pool = await warmed(createPool({ size: 1, deadlineMs: 5_000 }));
    const started = performance.now();
    expect(await pool.run({ spin: true }, { deadlineMs: 100 })).toMatchObject({ reason: 'deadline' });
    expect(performance.now() - started).toBeLessThan(1_000 * crowding());
  });

  it('terminates a running task when its signal aborts, and replaces the worker', async () => {
    const pool = await warmed(createPool({ size: 1, deadlineMs: 10_000 }));
    const controller = new AbortController();
    const running = pool.run({ spin: true }, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = performance.now();
    controller.abort(new Error('cancelled'));
    expect(await running).toMatchObject({ ok: false, reason: 'aborted' });
    expect(performance.now() - started).toBeLessThan(100 * crowding());
    expect(await pool.run({ n: 5 })).toMatchObject({ ok: true, value: { value: 10 } });
    expect(pool.stats().started).toBe(2);
  });

  it('drops an aborted task from the queue without touching the running one', async () => {
    const pool = await warmed(createPool({ size: 1, deadlineMs: 300 }));
    const running = pool.run({ spin: true });
    const controller = new AbortController();
    const waiting = pool.run({ n: 1 }, { signal: controller.signal });
    expect(pool.stats()).toMatchObject({ busy: 1, queued: 1 });
    controller.abort();
    expect(await waiting).toMatchObject({ ok: false, reason: 'aborted' });
    expect(pool.stats()).toMatchObject({ busy: 1, queued: 0 });
    expect(await running).toMatchObject({ reason: 'deadline' });
    expect(await pool.run({ n: 1 }, { signal: AbortSignal.abort() })).toMatchObject({ reason: 'aborted' });
  });

  it('runs tasks on its workers at the same time, and the rest in order after them', async () => {
    const pool = await warmed(createPool({ size: 2, deadlineMs: 300 }));
    const spinning = [pool.run({ spin: true }), pool.run({ spin: true })];
    const next = [pool.run({ n: 1 }), pool.run({ n: 2 })];
    expect(pool.stats()).toMatchObject({ busy: 2, queued: 2 });
    expect(await Promise.all(spinning)).toMatchObject([{ reason: 'deadline' }, { reason: 'deadline' }]);
    expect(await Promise.all(next)).toMatchObject([{ value: { value: 2 } }, { value: { value: 4 } }]);
  });

  it('sends waiting tasks to a free worker together, each held to its own deadline', async () => {
    const pool = await warmed(createPool({ size: 1, deadlineMs: 300 }));
    const first = pool.run({ n: 0 });
    // These wait while the first runs, then go to the worker in one message.
    const started = performance.now();
    const batch = [pool.run({ n: 1 }), pool.run({ spin: true }), pool.run({ n: 3 })];
    expect(pool.stats()).toMatchObject({ busy: 1, queued: 3 });
    expect(await first).toMatchObject({ ok: true, value: { value: 0 } });
    const [one, spin, three] = await Promise.all(batch);
    expect(performance.now() - started).toBeLessThan(900 * crowding());
    expect(one).toMatchObject({ ok: true, value: { value: 2 } });
    expect(spin).toMatchObject({ ok: false, reason: 'deadline' });
    // Run again on the replacement worker: the worker that ran it was stopped with the spin.
    expect(three).toMatchObject({ ok: true, value: { value: 6 } });
  });

  it('keeps the event loop running while a task spins', async () => {
    const pool = await warmed(createPool({ size: 1, deadlineMs: 500 }));
    let ticks = 0;
    const timer = setInterval(() => {
      ticks += 1;
    }, 10);
    try {
      expect(await pool.run({ spin: true })).toMatchObject({ reason: 'deadline' });
    } finally {
      clearInterval(timer);
    }
    // About 50 at rest; a loop blocked by the spin would tick once at most.
    expect(ticks).toBeGreaterThanOrEqual(5);
  });

  it('answers busy when the queue is full', async () => {
    const pool = await warmed(createPool({ size: 1, maxQueue: 1, deadlineMs: 200 }));
    const running = pool.run({ spin: true });
    const waiting = pool.run({ n: 1 });
    expect(await pool.run({ n: 2 })).toMatchObject({ ok: false, reason: 'busy' });
    expect(await running).toMatchObject({ reason: 'deadline' });
    expect(await waiting).toMatchObject({ ok: true });
  });

  it('reports a worker that exits or runs out of memory as crashed, and replaces it', async () => {
    const pool = await warmed(
      createPool({ size: 1, deadlineMs: 10_000, resourceLimits: { maxOldGenerationSizeMb: 32 } }),
    );
    expect(await pool.run({ exit: true })).toMatchObject({ ok: false, reason: 'crashed' });
    expect(await pool.run({ hog: true })).toEqual({
      ok: false,
      reason: 'crashed',
      message: 'The task ran out of memory.',
    });
    expect(await pool.run({ n: 3 })).toMatchObject({ ok: true, value: { value: 6 } });
    expect(pool.stats().started).toBe(3);
  });

  it('fails waiting tasks, without respawning in a loop, when a worker cannot start', async () => {
    const pool = createPool({ handler: `(() => { throw new Error('cannot load'); })()` });
    const outcome = await pool.run({ n: 1 });
    expect(outcome).toMatchObject({ ok: false, reason: 'crashed', message: expect.stringMatching(/cannot load/) });
    // Once both workers' exits are handled (none live), a respawn would have shown.
    while (pool.stats().live > 0 && pool.stats().started <= 2) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(pool.stats().started).toBe(2);
  });

  it('loads packages from the configured folders', async () => {
    const pool = createWorkerPool<string, string>({
      handler: `(() => { const { create, all } = require('mathjs'); const math = create(all); return (e) => String(math.evaluate(e)); })()`,
      // Not what this test is about: time enough for mathjs's first evaluation on a busy machine.
      deadlineMs: 30_000,
      size: 1,
      resolvePaths: [process.cwd()],
    });
    pools.push(pool as never);
    expect(await pool.run('2 + 2')).toEqual({ ok: true, value: '4' });
  });

  it('resolves running and waiting tasks as closed when closed, and refuses new ones', async () => {
    const pool = await warmed(createPool({ size: 1, deadlineMs: 10_000 }));
    const running = pool.run({ spin: true });
    const waiting = pool.run({ n: 1 });
    await pool.close();
    expect(await running).toMatchObject({ ok: false, reason: 'closed' });
    expect(await waiting).toMatchObject({ ok: false, reason: 'closed' });
    expect(await pool.run({ n: 1 })).toMatchObject({ ok: false, reason: 'closed' });
    expect(pool.stats().live).toBe(0);
  });
});
