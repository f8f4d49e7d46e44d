import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { TraceRecord } from '../executor/types';
import { createSqliteTraceStore } from './sqlite-trace-store';
import { createTempDataDir, openTestDatabase } from './test-database';
import { seriesVsCalls } from './testing/tool-series-check';
import type { TraceStore } from './trace-store';
import { makeTrace } from './trace-store-suite';
import { createVault } from './vault';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);

const temp = createTempDataDir('toolscope-series-prop-');
afterAll(() => temp.remove());

// Latencies on and around the bin bounds, and none at all (counted, in no bin).
const latency = fc.oneof(fc.constant(null), fc.constantFrom(0, 0.05, 0.1, 0.19, 1, 99.9, 100, 5_000, 250_000));
const finish = fc.record({
  kind: fc.constant('finish' as const),
  pick: fc.nat(),
  fresh: fc.boolean(), // a call never begun: a rejected call, written by upsert
  failed: fc.boolean(),
  // Now and then a record whose tool is not the one it began with.
  tool: fc.option(fc.constantFrom('calculator', 'read_file'), { freq: 4 }),
  latencyMs: latency,
  at: fc.integer({ min: 0, max: 3 * HOUR }),
});
const command = fc.oneof(
  fc.record({
    kind: fc.constant('begin' as const),
    tool: fc.constantFrom('calculator', 'read_file', 'search_web'),
    durable: fc.boolean(), // `write` commits its begin now; `read` defers it to its finish
    // A record that already carries a finish time when it begins: the row is finished from the start.
    finishedEarly: fc.boolean(),
  }),
  finish,
  finish,
  fc.record({ kind: fc.constant('interrupt' as const), at: fc.integer({ min: 0, max: 3 * HOUR }) }),
  fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('prune' as const), keepNewest: fc.nat({ max: 6 }) }),
  fc.constant({ kind: 'flush' as const }),
  fc.constant({ kind: 'failCommit' as const }),
);
type Command = typeof command extends fc.Arbitrary<infer C> ? C : never;

let provokedFailures = 0;

/** Makes the next commit that adds to the series fail at its very end, after the rows were written. */
function installCommitFailure(store: TraceStore, db: ReturnType<typeof openTestDatabase>) {
  db.exec(`CREATE TEMP TABLE fail_switch (armed INTEGER NOT NULL);
    INSERT INTO fail_switch VALUES (0);
    CREATE TEMP TRIGGER fail_series BEFORE INSERT ON main.tool_series_hours
      WHEN (SELECT armed FROM fail_switch) BEGIN SELECT RAISE(ABORT, 'provoked commit failure'); END;`);
  const arm = db.prepare('UPDATE fail_switch SET armed = ?');
  const lastError = () => JSON.stringify(store.health().lastError);
  return () => {
    const before = lastError();
    arm.run(1);
    try {
      store.flush();
      // A failure of one write alone is not thrown: that write is set aside, the rest committed.
      if (lastError() !== before && lastError().includes('provoked commit failure')) provokedFailures += 1;
    } catch {
      // Expected when the batch finished a call; its writes stay queued for the next commit.
      provokedFailures += 1;
    }
    arm.run(0);
  };
}

function run(commands: Command[], runId: number) {
  const dir = path.join(temp.dir, `run-${runId}`);
  const db = openTestDatabase(dir);
  const store = createSqliteTraceStore({ db, vault: createVault({ dir }) });
  const failNextCommit = installCommitFailure(store, db);
  const calls: TraceRecord[] = [];
  const pick = (n: number) => calls[n % calls.length];
  try {
    for (const c of commands) {
      if (c.kind === 'begin') {
        const trace = makeTrace({
          tool: c.tool,
          sideEffect: c.durable ? 'write' : 'read',
          status: 'running',
          createdAt: T0,
          finishedAt: c.finishedEarly ? T0 + 1 : null,
          latencyMs: null,
        });
        calls.push(trace);
        store.begin(trace);
      } else if (c.kind === 'finish') {
        const base = c.fresh || calls.length === 0 ? makeTrace({ createdAt: T0 }) : pick(c.pick);
        if (base === undefined) continue;
        if (c.fresh) calls.push(base);
        const status = c.failed ? 'failed' : 'succeeded';
        const tool = c.tool ?? base.tool;
        void store.finish({ ...base, tool, status, finishedAt: T0 + c.at, latencyMs: c.latencyMs });
      } else if (c.kind === 'interrupt') store.markInterrupted(T0 + c.at);
      else if (c.kind === 'delete' && calls.length > 0) store.delete(pick(c.pick)?.id ?? '');
      else if (c.kind === 'prune') store.prune({ keepNewest: c.keepNewest, limit: 3 });
      else if (c.kind === 'flush') store.flush();
      else if (c.kind === 'failCommit') failNextCommit();
    }
    store.flush();
    const { stored, grouped } = seriesVsCalls(db);
    expect(stored).toEqual(grouped);
  } finally {
    store.close();
  }
}

describe('tool series kept by the store', () => {
  it('equal grouping the finished calls after any mix of writes, interruptions, deletions and failed commits', () => {
    let runId = 0;
    fc.assert(
      fc.property(fc.array(command, { maxLength: 40 }), (commands) => {
        runId += 1;
        run(commands, runId);
      }),
      { numRuns: 60 },
    );
    expect(provokedFailures).toBeGreaterThan(0);
  });
});
