import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../executor/manual-clock';
import { type RetentionSweep, startRetention } from './retention';
import { createSqliteTraceStore } from './sqlite-trace-store';
import { createTempDataDir, openTestDatabase } from './test-database';
import type { PruneOptions, TraceStore } from './trace-store';
import { makeTrace } from './trace-store-suite';
import { createVault } from './vault';

const DAY = 24 * 60 * 60 * 1000;
const HOUR = 60 * 60 * 1000;
const temp = createTempDataDir('toolscope-retention-');
afterAll(() => temp.remove());

let store: TraceStore;
let clock: ManualClock;
let count = 0;
beforeEach(() => {
  const dir = path.join(temp.dir, `case-${++count}`);
  store = createSqliteTraceStore({ db: openTestDatabase(dir), vault: createVault({ dir }) });
  clock = createManualClock(Date.UTC(2026, 10, 30));
});
afterEach(() => store.close());

/** Records `n` finished calls created `ageDays` ago (by the manual clock), in one commit. */
function recordAged(n: number, ageDays: number, overrides: Parameters<typeof makeTrace>[0] = {}) {
  const traces = Array.from({ length: n }, () =>
    makeTrace({ createdAt: clock.epochMs() - ageDays * DAY, sideEffect: 'none', ...overrides }),
  );
  for (const trace of traces) store.finish(trace);
  store.flush();
  return traces;
}

/** A promise for the next sweep that deletes something, and the log lines. */
function watch() {
  const logs: string[] = [];
  let resolveNext: (sweep: RetentionSweep) => void = () => {};
  let next = new Promise<RetentionSweep>((resolve) => {
    resolveNext = resolve;
  });
  return {
    logs,
    log: (message: string) => logs.push(message),
    onDeleted: (sweep: RetentionSweep) => resolveNext(sweep),
    next: () => next,
    reset: () => {
      next = new Promise<RetentionSweep>((resolve) => {
        resolveNext = resolve;
      });
    },
  };
}

const total = () => store.list({ limit: 1 }).total;

describe('startRetention', () => {
  it('deletes calls older than maxAgeDays soon after start, then hourly, never unfinished ones', async () => {
    const w = watch();
    recordAged(1200, 40);
    const young = recordAged(5, 10);
    const running = makeTrace({ createdAt: clock.epochMs() - 40 * DAY, status: 'running', sideEffect: 'exec' });
    const waiting = makeTrace({ createdAt: clock.epochMs() - 40 * DAY, status: 'awaiting_approval' });
    store.begin(running);
    store.update(waiting);
    const retention = startRetention({
      store,
      retention: { maxAgeDays: 30, maxCalls: null },
      clock,
      firstSweepAfterMs: 10_000,
      onDeleted: w.onDeleted,
      log: w.log,
    });

    await clock.advance(9_999);
    expect(total()).toBe(1207);
    await clock.advance(1);
    expect(await w.next()).toEqual({ expired: 1200, overLimit: 0 });
    expect(w.logs).toEqual(['[toolscope] retention deleted 1200 calls older than 30 days']);
    const left = store.list({ limit: 500 }).items.map((item) => item.id);
    expect(left.sort()).toEqual([...young.map((t) => t.id), running.id, waiting.id].sort());

    // An hour later the 10-day-old calls are still young; 25 days on, they are not.
    w.reset();
    recordAged(3, 31);
    await clock.advance(HOUR);
    expect(await w.next()).toEqual({ expired: 3, overLimit: 0 });
    w.reset();
    await clock.advance(25 * DAY - HOUR);
    expect(await w.next()).toEqual({ expired: 5, overLimit: 0 });
    expect(total()).toBe(2);

    retention.stop();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('deletes in chunks, letting other work run between them', async () => {
    recordAged(1100, 40);
    const order: string[] = [];
    let first = true;
    const chunked = {
      prune(options: PruneOptions) {
        if (first) {
          first = false;
          setImmediate(() => order.push('a call'));
        }
        const deleted = store.prune(options);
        order.push(`chunk of ${deleted}`);
        return deleted;
      },
    };
    const retention = startRetention({
      store: chunked,
      retention: { maxAgeDays: 30, maxCalls: null },
      clock,
      chunkSize: 500,
      log: () => {},
    });
    expect(await retention.sweep()).toEqual({ expired: 1100, overLimit: 0 });
    expect(order).toEqual(['chunk of 500', 'a call', 'chunk of 500', 'chunk of 100']);
    retention.stop();
  });

  it('keeps only the newest maxCalls calls, counting but never deleting unfinished ones', async () => {
    const w = watch();
    const old = recordAged(10, 1);
    const running = makeTrace({ status: 'running', sideEffect: 'exec', createdAt: clock.epochMs() - 2 * DAY });
    store.begin(running);
    const newest = recordAged(4, 0);
    const retention = startRetention({
      store,
      retention: { maxAgeDays: null, maxCalls: 5 },
      clock,
      chunkSize: 3,
      onDeleted: w.onDeleted,
      log: w.log,
    });
    expect(await retention.sweep()).toEqual({ expired: 0, overLimit: 10 });
    expect(w.logs).toEqual(['[toolscope] retention deleted 10 calls beyond the newest 5']);
    expect(old.every((t) => store.get(t.id) === null)).toBe(true);
    expect(store.get(running.id)?.status).toBe('running');
    expect(newest.every((t) => store.get(t.id) !== null)).toBe(true);
    expect(store.toolStats()).toMatchObject([{ tool: 'calculator', calls: 5 }]);
    retention.stop();
  });

  it('schedules nothing when both bounds are null, and nothing after stop', async () => {
    const off = startRetention({ store, retention: { maxAgeDays: null, maxCalls: null }, clock });
    expect(clock.pendingTimers()).toBe(0);
    off.stop();
    recordAged(3, 40);
    const on = startRetention({ store, retention: { maxAgeDays: 30, maxCalls: null }, clock, log: () => {} });
    expect(clock.pendingTimers()).toBe(1);
    on.stop();
    await clock.advance(2 * HOUR);
    expect(total()).toBe(3);
  });

  it('logs a failed sweep and tries again an hour later', async () => {
    const w = watch();
    recordAged(2, 40);
    let failures = 1;
    const flaky = {
      prune(options: PruneOptions) {
        if (failures-- > 0) throw new Error('database is locked');
        return store.prune(options);
      },
    };
    const retention = startRetention({
      store: flaky,
      retention: { maxAgeDays: 30, maxCalls: null },
      clock,
      onDeleted: w.onDeleted,
      log: w.log,
    });
    await clock.advance(10_000);
    expect(w.logs).toEqual([expect.stringMatching(/retention failed.*database is locked/)]);
    expect(total()).toBe(2);
    await clock.advance(HOUR);
    expect(await w.next()).toEqual({ expired: 2, overLimit: 0 });
    retention.stop();
  });
});

describe('afterSweep', () => {
  it('runs after every sweep, whether it deleted calls or not, with the clock time', async () => {
    const swept: number[] = [];
    const retention = startRetention({
      store,
      retention: { maxAgeDays: 30, maxCalls: null },
      clock,
      afterSweep: (now) => swept.push(now),
      log: () => {},
    });
    await retention.sweep();
    expect(swept).toEqual([clock.epochMs()]);
    recordAged(2, 40);
    await retention.sweep();
    expect(swept).toHaveLength(2);
    expect(total()).toBe(0);
    retention.stop();
  });
});
