import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { latencyBinOf } from '../../db/latency-bins';
import { defineTool } from '../../executor/define-tool';
import { testToolscopes } from '../../server/testing/test-toolscopes';
import { type Json, sendJson } from '../testing/call-app';

/**
 * Latency means execution, through the HTTP layer against a real SQLite file and the real
 * executor: a write waits for a person, is approved, runs while the test holds it, and its trace,
 * list row, tool stats and session say how long it ran and, apart, how long it waited.
 */
const toolscopes = testToolscopes('toolscope-latency-wait-');

/** Long enough that arrival-to-answer and execution fall in different latency bins. */
const APPROVAL_PAUSE_MS = 600;

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(read: () => T | undefined | null | false, what: string, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await pause(10);
  }
}

/** A write (so it asks first) that runs until the test lets it finish. */
function gatedWrite() {
  let open = () => {};
  const gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let started = false;
  const tool = defineTool({
    name: 'gated_write',
    description: 'Writes nothing; runs until the test lets it finish.',
    inputSchema: z.object({}),
    sideEffect: 'write',
    execute: async () => {
      started = true;
      await gate;
      return { written: true };
    },
  });
  return { tool, open: () => open(), started: () => started };
}

describe('latency without the approval wait, over HTTP', () => {
  it('answers execution as latency_ms and the wait as approval_wait_ms, in the trace, the list, the stats and the session', async () => {
    const gated = gatedWrite();
    const ts = toolscopes.start(toolscopes.dataDir(), { tools: [gated.tool] });
    const session = async (): Promise<Json> => (await sendJson(ts, 'GET', '/api/v1/sessions/run-w')).json;
    const listed = async (): Promise<Json> =>
      (await sendJson(ts, 'GET', '/api/v1/sessions')).json.sessions.find((s: Json) => s.id === 'run-w');

    const answer = await sendJson(ts, 'POST', '/api/v1/tool-calls', {
      session_id: 'run-w',
      wait: false,
      tool_calls: [{ id: 'g1', type: 'function', function: { name: 'gated_write', arguments: '{}' } }],
    });
    expect(answer.status).toBe(200);
    const traceId: string = answer.json.results[0].trace_id;
    await until(() => ts.approvals.get(traceId), 'the pending approval');

    // Awaiting a person: waiting, not running, and the session has not ended.
    const waiting = await session();
    expect(waiting).toMatchObject({ running: 0, waiting: 1, ended_at: null });
    expect(waiting.calls[0]).toMatchObject({ status: 'awaiting_approval', latency_ms: null });
    expect(await listed()).toMatchObject({ running: 0, waiting: 1, ended_at: null });

    await pause(APPROVAL_PAUSE_MS);
    expect((await sendJson(ts, 'POST', `/api/v1/approvals/${traceId}`, { decision: 'approve' })).status).toBe(200);
    await until(() => gated.started(), 'the tool to start');

    // Running: the attempt in progress is in the session's JSON, and its time counts as it runs.
    const running = await session();
    expect(running).toMatchObject({ running: 1, waiting: 0, ended_at: null });
    expect(running.calls[0]).toMatchObject({ status: 'running', attempts: [{ number: 1, outcome: 'running' }] });
    expect(await listed()).toMatchObject({ running: 1, waiting: 0 });
    await pause(40);
    expect((await session()).totals.executing_ms).toBeGreaterThanOrEqual(running.totals.executing_ms + 30);

    gated.open();
    await until(() => ts.store.get(traceId)?.status === 'succeeded', 'the call to finish');

    const trace = (await sendJson(ts, 'GET', `/api/v1/traces/${traceId}`)).json;
    const latency: number = trace.result.latency_ms;
    const wait: number = trace.approval_wait_ms;
    const wall = Date.parse(trace.finished_at) - Date.parse(trace.created_at);
    expect(wait).toBe(Date.parse(trace.approval.decided_at) - Date.parse(trace.approval.requested_at));
    expect(wait).toBeGreaterThanOrEqual(APPROVAL_PAUSE_MS);
    // Latency is arrival to answer less the wait (the epoch times are whole milliseconds).
    expect(Math.abs(latency + wait - wall)).toBeLessThanOrEqual(2);
    expect(latency).toBeLessThan(wall - APPROVAL_PAUSE_MS + 2);

    const row = (await sendJson(ts, 'GET', '/api/v1/traces?session=run-w')).json.items[0];
    expect(row).toMatchObject({ id: traceId, latency_ms: latency, approval_wait_ms: wait });

    // The tool's p50/p95 lie in the bin of the execution latency, not of arrival to answer.
    expect(latencyBinOf(wall)).not.toBe(latencyBinOf(latency));
    const stats = (await sendJson(ts, 'GET', '/api/v1/tools/gated_write/stats?range=hour')).json;
    expect(stats.summary.calls).toBe(1);
    expect(latencyBinOf(stats.summary.p50_ms)).toBe(latencyBinOf(latency));
    expect(latencyBinOf(stats.summary.p95_ms)).toBe(latencyBinOf(latency));
    const all = (await sendJson(ts, 'GET', '/api/v1/stats?range=hour')).json;
    expect(latencyBinOf(all.tools.find((t: Json) => t.name === 'gated_write').p95_ms)).toBe(latencyBinOf(latency));

    // Finished: the session ends at its last call's end (not its start, not now).
    const done = await session();
    expect(done).toMatchObject({ running: 0, waiting: 0, ended_at: trace.finished_at, wall_ms: wall });
    expect(done.ended_at).not.toBe(done.last_call_at);
    expect(done.calls[0]).toMatchObject({ latency_ms: latency, approval_wait_ms: wait });
    expect(done.totals.approval_wait_ms).toBe(wait);
    expect(await listed()).toMatchObject({ running: 0, waiting: 0, ended_at: trace.finished_at, wall_ms: wall });
  });

  it('imports a file exported before latency meant execution with the wait taken out, and a newer file as it is', async () => {
    const source = toolscopes.start(toolscopes.dataDir());
    const answer = await sendJson(source, 'POST', '/api/v1/tool-calls', {
      session_id: 'run-export',
      wait: false,
      tool_calls: [
        { id: 'w1', type: 'function', function: { name: 'write_file', arguments: '{"path":"a.txt","content":"x"}' } },
      ],
    });
    const traceId: string = answer.json.results[0].trace_id;
    await until(() => source.approvals.get(traceId), 'the pending approval');
    await pause(50);
    await sendJson(source, 'POST', `/api/v1/approvals/${traceId}`, { decision: 'approve' });
    await until(() => source.store.get(traceId)?.status === 'succeeded', 'the call to finish');
    const file = (await sendJson(source, 'GET', `/api/v1/traces/${traceId}/export`)).json;
    const exported = file.traces[0];
    const wait: number = exported.approval_wait_ms;
    const wall = Date.parse(exported.finished_at) - Date.parse(exported.created_at);
    expect(wait).toBeGreaterThanOrEqual(50);

    const newer = toolscopes.start(toolscopes.dataDir());
    expect((await sendJson(newer, 'POST', '/api/v1/import', file)).status).toBe(201);
    const kept = (await sendJson(newer, 'GET', `/api/v1/traces/${traceId}`)).json;
    expect(kept).toMatchObject({ result: { latency_ms: exported.result.latency_ms }, approval_wait_ms: wait });

    // As an older Toolscope wrote it: no approval_wait_ms, the wait inside the latency.
    const { approval_wait_ms: _wait, ...old } = exported;
    const older = toolscopes.start(toolscopes.dataDir());
    const oldFile = { ...file, traces: [{ ...old, result: { ...old.result, latency_ms: wall } }] };
    expect((await sendJson(older, 'POST', '/api/v1/import', oldFile)).status).toBe(201);
    const fixed = (await sendJson(older, 'GET', `/api/v1/traces/${traceId}`)).json;
    expect(fixed.approval_wait_ms).toBe(wait);
    expect(Math.abs(fixed.result.latency_ms - (wall - wait))).toBeLessThanOrEqual(1);
  });
});
