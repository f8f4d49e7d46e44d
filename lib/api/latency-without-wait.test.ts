import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createApprovalQueue } from '../approvals/approval-queue';
import { latencyBinOf } from '../db/latency-bins';
import { createSqliteToolSeries } from '../db/sqlite-tool-series';
import { createSqliteTraceStore, type SqliteTraceStore } from '../db/sqlite-trace-store';
import { createTempDataDir, openTestDatabase } from '../db/test-database';
import { createVault } from '../db/vault';
import { sleep } from '../executor/clock';
import { defineTool } from '../executor/define-tool';
import { createExecutor } from '../executor/executor';
import { createManualClock, type ManualClock } from '../executor/manual-clock';
import { createRegistry } from '../executor/registry';
import { summaryJson, traceJson } from './serialize';
import { sessionDetail } from './sessions';

/**
 * Latency means execution: the real executor, approvals queue and SQLite store on a manual clock,
 * so the figures are exact. A write that runs 3 ms after a person took 52.2 s to approve it.
 */
const WAIT_MS = 52_200;
const RUN_MS = 3;
const reviewer = { id: 'key_rev', name: 'rev', role: 'reviewer' };

let temp: ReturnType<typeof createTempDataDir>;
let clock: ManualClock;
let store: SqliteTraceStore;
let db: ReturnType<typeof openTestDatabase>;

beforeEach(() => {
  temp = createTempDataDir('toolscope-latency-');
  clock = createManualClock();
  db = openTestDatabase(temp.dir);
  store = createSqliteTraceStore({ db, vault: createVault({ dir: temp.dir }), timers: clock });
});
afterEach(() => {
  store.close();
  temp.remove();
});

function setup() {
  const post = defineTool({
    name: 'post_note',
    description: 'Posts a note (a write, so it asks first); takes 3 ms.',
    inputSchema: z.object({}),
    sideEffect: 'write',
    execute: async (_input, ctx) => {
      await sleep(ctx.clock, RUN_MS, ctx.signal);
      return { posted: true };
    },
  });
  const approvals = createApprovalQueue();
  const executor = createExecutor({ registry: createRegistry([post]), sink: store, clock, approver: approvals });
  return { executor, approvals, ts: { store, executor, approvals } };
}

describe('latency without the approval wait', () => {
  it('records 3 ms of latency and a 52.2 s wait beside it: trace, list row, tool stats and session', async () => {
    const { executor, approvals, ts } = setup();
    const pending = executor.execute({ id: 'call_1', name: 'post_note', arguments: {} }, { sessionId: 'run-1' });
    await clock.advance(0);
    const traceId = approvals.list()[0]?.traceId ?? '';
    expect(traceId).not.toBe('');

    // Waiting for a person: the session says waiting, not running, and has not ended.
    await clock.advance(1_000);
    const waiting = sessionDetail(ts, 'run-1', clock.epochMs());
    expect(waiting).toMatchObject({ running: 0, waiting: 1, ended_at: null });
    expect(waiting?.calls[0]).toMatchObject({ status: 'awaiting_approval', latency_ms: null, approval_wait_ms: 1_000 });
    expect(waiting?.totals).toMatchObject({ approval_wait_ms: 1_000, executing_ms: 0 });

    await clock.advance(WAIT_MS - 1_000);
    expect(approvals.decide(traceId, { decision: 'approve' }, reviewer)).toMatchObject({ ok: true });
    await clock.advance(1);

    // Running: the attempt in progress is in the session's JSON and its time counts up to now.
    const running = sessionDetail(ts, 'run-1', clock.epochMs());
    expect(running).toMatchObject({ running: 1, waiting: 0, ended_at: null });
    expect(running?.calls[0]).toMatchObject({
      status: 'running',
      attempts: [{ number: 1, outcome: 'running', duration_ms: 0 }],
      approval_wait_ms: WAIT_MS,
    });
    expect(running?.totals).toEqual({ executing_ms: 1, retrying_ms: 0, approval_wait_ms: WAIT_MS });
    expect(sessionDetail(ts, 'run-1', clock.epochMs() + 1)?.totals.executing_ms).toBe(2);

    await clock.advance(RUN_MS - 1);
    const result = await pending;
    expect(result).toMatchObject({ status: 'succeeded', latencyMs: RUN_MS });
    store.flush();

    const trace = store.get(traceId);
    expect(trace?.latencyMs).toBe(RUN_MS);
    // The finish stays where it was: arrival, plus the wait, plus the run.
    expect((trace?.finishedAt ?? 0) - (trace?.createdAt ?? 0)).toBe(WAIT_MS + RUN_MS);
    const json = traceJson(trace!);
    expect(json.result.latency_ms).toBe(RUN_MS);
    expect(json.approval_wait_ms).toBe(WAIT_MS);
    const row = summaryJson(store.list({ limit: 1 }).items[0]!);
    expect(row).toMatchObject({ id: traceId, latency_ms: RUN_MS, approval_wait_ms: WAIT_MS });

    // The tool's p50/p95 come from a histogram of execution latencies: the bin of 3 ms, not of 52 s.
    const series = createSqliteToolSeries(db).series({ tool: 'post_note', range: 'hour', now: clock.epochMs() });
    expect(series.summary.calls).toBe(1);
    expect(latencyBinOf(series.summary.p50Ms ?? -1)).toBe(latencyBinOf(RUN_MS));
    expect(latencyBinOf(series.summary.p95Ms ?? -1)).toBe(latencyBinOf(RUN_MS));
    expect(store.toolStats()).toEqual([
      expect.objectContaining({ tool: 'post_note', p50LatencyMs: RUN_MS, p95LatencyMs: RUN_MS }),
    ]);

    // Finished: the session ends at its last call's end, not at its start and not now.
    const done = sessionDetail(ts, 'run-1', clock.epochMs() + 60_000);
    expect(done).toMatchObject({
      running: 0,
      waiting: 0,
      ended_at: new Date(trace!.finishedAt!).toISOString(),
      wall_ms: WAIT_MS + RUN_MS,
    });
    expect(done?.ended_at).not.toBe(done?.last_call_at);
    expect(done?.totals).toEqual({ executing_ms: RUN_MS, retrying_ms: 0, approval_wait_ms: WAIT_MS });
  });

  it('gives a call that never waited the whole time as latency and a null wait', async () => {
    const { executor, ts } = setup();
    const quick = defineTool({
      name: 'peek',
      description: 'Reads; takes 3 ms.',
      inputSchema: z.object({}),
      sideEffect: 'read',
      execute: async (_input, ctx) => sleep(ctx.clock, RUN_MS, ctx.signal),
    });
    executor.registry.register(quick);
    const pending = executor.execute({ id: 'call_2', name: 'peek', arguments: {} }, { sessionId: 'run-2' });
    await clock.advance(RUN_MS);
    const result = await pending;
    store.flush();
    expect(result.latencyMs).toBe(RUN_MS);
    const json = traceJson(store.get(result.traceId)!);
    expect(json.result.latency_ms).toBe(RUN_MS);
    expect(json.approval_wait_ms).toBeNull();
    expect(summaryJson(store.list({ limit: 1 }).items[0]!).approval_wait_ms).toBeNull();
    expect(sessionDetail(ts, 'run-2', clock.epochMs())).toMatchObject({ running: 0, waiting: 0 });
  });
});
