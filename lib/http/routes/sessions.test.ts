import { describe, expect, it } from 'vitest';
import type { Toolscope } from '../../server/create-toolscope';
import { testToolscopes } from '../../server/testing/test-toolscopes';
import { type Json, sendJson } from '../testing/call-app';

/**
 * The sessions API through the HTTP layer against a real SQLite file and the real executor: calls
 * go in through `POST /api/v1/tool-calls`, sessions come out of the trigger-kept aggregate.
 */
const toolscopes = testToolscopes('toolscope-sessions-api-');

const call = (id: string, name: string, args: unknown) => ({
  id,
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
});

async function run(ts: Toolscope, body: object): Promise<Json> {
  const answer = await sendJson(ts, 'POST', '/api/v1/tool-calls', body);
  expect(answer.status).toBe(200);
  return answer.json;
}

const list = (ts: Toolscope, query = '') => sendJson(ts, 'GET', `/api/v1/sessions${query}`);
const detail = (ts: Toolscope, id: string) => sendJson(ts, 'GET', `/api/v1/sessions/${encodeURIComponent(id)}`);

async function until<T>(read: () => T | undefined | null | false, what: string, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const SESSION_KEYS = [
  'approval_wait_ms',
  'calls',
  'denied',
  'ended_at',
  'failed',
  'first_call_at',
  'id',
  'imported',
  'last_call_at',
  'running',
  'waiting',
  'wall_ms',
];

describe('GET /api/v1/sessions and /api/v1/sessions/:id', () => {
  it("carries each batch's assistant message, redacted, by batch id; batches sent without one are left out", async () => {
    const ts = toolscopes.start(toolscopes.dataDir());
    await run(ts, {
      session_id: 'why-run',
      assistant_message: { text: 'Adding them up; my key is sk-live-0123456789abcdefghij', model: 'gpt-test' },
      tool_calls: [call('w1', 'calculator', { expression: '1+1' }), call('w2', 'calculator', { expression: '2+2' })],
    });
    await run(ts, { session_id: 'why-run', tool_calls: [call('w3', 'calculator', { expression: '3+3' })] });
    const { json } = await detail(ts, 'why-run');
    const [first, , third] = json.calls;
    expect(Object.keys(json.assistant_messages)).toEqual([first.batch_id]);
    expect(json.assistant_messages[first.batch_id]).toMatchObject({ model: 'gpt-test', truncated: false });
    expect(json.assistant_messages[first.batch_id].text).toMatch(/^Adding them up/);
    expect(JSON.stringify(json)).not.toContain('0123456789abcdefghij');
    expect(json.assistant_messages[third.batch_id]).toBeUndefined();
  });

  it('lists an agent run with its counts, and details its calls, batches, findings and totals', async () => {
    const ts = toolscopes.start(toolscopes.dataDir());
    // One request of two parallel calls, then the agent loops on a failing expression.
    const batch = await run(ts, {
      session_id: 'Agent-Run-1',
      tool_calls: [call('c1', 'calculator', { expression: '1+1' }), call('c2', 'calculator', { expression: '2*3' })],
    });
    expect(batch.results.map((r: Json) => r.status)).toEqual(['succeeded', 'succeeded']);
    for (const [n, args] of [
      { expression: '1/', precision: 2 },
      { precision: 2, expression: '1/' },
      { expression: '1/', precision: 2 },
    ].entries()) {
      const loop = await run(ts, { session_id: 'Agent-Run-1', tool_calls: [call(`loop${n}`, 'calculator', args)] });
      expect(loop.results[0].status).toBe('failed');
    }
    await run(ts, { session_id: 'other-run', tool_calls: [call('o1', 'calculator', { expression: '3+3' })] });

    const { status, json } = await list(ts);
    expect(status).toBe(200);
    expect(json.next_cursor).toBeNull();
    expect(json.sessions.map((s: Json) => s.id)).toEqual(['other-run', 'Agent-Run-1']);
    const run1 = json.sessions[1];
    expect(Object.keys(run1).sort()).toEqual(SESSION_KEYS);
    expect(run1).toMatchObject({ calls: 5, failed: 3, denied: 0, running: 0, approval_wait_ms: 0, imported: false });
    expect(run1.wall_ms).toBeGreaterThanOrEqual(Date.parse(run1.last_call_at) - Date.parse(run1.first_call_at));

    const view = await detail(ts, 'Agent-Run-1');
    expect(view.status).toBe(200);
    expect(Object.keys(view.json).sort()).toEqual(
      // `calls` is the list of calls here (the count is its length), as the contract spreads it over the session.
      [...SESSION_KEYS, 'assistant_messages', 'calls_truncated', 'findings', 'replay_of_session', 'totals'].sort(),
    );
    expect(view.json.calls_truncated).toBe(false);
    const calls = view.json.calls;
    expect(calls.map((c: Json) => c.tool_call_id)).toEqual(['c1', 'c2', 'loop0', 'loop1', 'loop2']);
    expect(calls.map((c: Json) => c.session_seq)).toEqual([1, 2, 3, 4, 5]);
    expect(calls[0].batch_id).toBe(calls[1].batch_id);
    expect(calls[2].batch_id).not.toBe(calls[0].batch_id);
    expect(calls[0]).toMatchObject({
      tool: 'calculator',
      status: 'succeeded',
      approval: null,
      started_at: calls[0].created_at,
      attempts: [{ number: 1, started_at: expect.any(Number), duration_ms: expect.any(Number), outcome: 'ok' }],
    });
    expect(typeof calls[0].finished_at).toBe('string');
    const loopIds = calls.slice(2).map((c: Json) => c.id);
    expect(view.json.findings).toEqual([
      { kind: 'repeated_call', tool: 'calculator', count: 3, trace_ids: loopIds },
      { kind: 'repeated_failure', tool: 'calculator', count: 3, trace_ids: loopIds },
    ]);
    expect(Object.keys(view.json.totals).sort()).toEqual(['approval_wait_ms', 'executing_ms', 'retrying_ms']);
    expect(view.json.totals.approval_wait_ms).toBe(0);

    expect((await list(ts, '?q=agent-run')).json.sessions.map((s: Json) => s.id)).toEqual(['Agent-Run-1']);
    expect((await list(ts, '?failed=true')).json.sessions.map((s: Json) => s.id)).toEqual(['Agent-Run-1']);
    const first = await list(ts, '?limit=1');
    expect(first.json.sessions.map((s: Json) => s.id)).toEqual(['other-run']);
    const second = await list(ts, `?limit=1&cursor=${first.json.next_cursor}`);
    expect(second.json.sessions.map((s: Json) => s.id)).toEqual(['Agent-Run-1']);
    expect(second.json.next_cursor).toBeNull();
  });

  it('counts an open approval wait up to now in the detail only, and the decided wait in both', async () => {
    const ts = toolscopes.start(toolscopes.dataDir());
    const answer = await run(ts, {
      session_id: 'waiting-run',
      wait: false,
      tool_calls: [call('w1', 'write_file', { path: 'notes.txt', content: 'hi' })],
    });
    const traceId = answer.results[0].trace_id;
    await until(() => ts.approvals.get(traceId), 'the pending approval');
    await new Promise((resolve) => setTimeout(resolve, 30));
    const listed = (await list(ts)).json.sessions[0];
    expect(listed).toMatchObject({ id: 'waiting-run', running: 0, waiting: 1, ended_at: null, approval_wait_ms: 0 });
    const open = (await detail(ts, 'waiting-run')).json;
    expect(open.approval_wait_ms).toBeGreaterThanOrEqual(25);
    expect(open.totals.approval_wait_ms).toBe(open.approval_wait_ms);
    expect(open.calls[0]).toMatchObject({
      status: 'awaiting_approval',
      approval: { requested_at: expect.any(String), decided_at: null, decision: null },
    });

    const decided = await sendJson(ts, 'POST', `/api/v1/approvals/${traceId}`, { decision: 'deny', reason: 'not now' });
    expect(decided.status).toBe(200);
    await until(() => ts.store.getSession('waiting-run')?.running === 0, 'the call to finish');
    const after = (await list(ts)).json.sessions[0];
    expect(after).toMatchObject({ running: 0, waiting: 0, denied: 1 });
    expect(after.approval_wait_ms).toBeGreaterThanOrEqual(25);
    const done = (await detail(ts, 'waiting-run')).json;
    expect(done.approval_wait_ms).toBe(after.approval_wait_ms);
    expect(done.calls[0].approval).toMatchObject({ decision: 'denied', decided_at: expect.any(String) });
  });

  it('answers 404 for an unknown session and 400 naming a bad parameter or cursor', async () => {
    const ts = toolscopes.start(toolscopes.dataDir());
    expect(await detail(ts, 'nobody')).toEqual({
      status: 404,
      json: { error: { code: 'NOT_FOUND', message: 'No session with id "nobody".' } },
    });
    for (const query of ['?limit=0', '?limit=201', '?limit=x']) {
      const bad = await list(ts, query);
      expect(bad.status).toBe(400);
      expect(bad.json.error.code).toBe('INVALID_QUERY');
      expect(bad.json.error.message).toMatch(/^limit: /);
    }
    expect((await list(ts, '?failed=maybe')).json.error.message).toMatch(/^failed: /);
    const cursor = await list(ts, '?cursor=not-a-cursor');
    expect(cursor.status).toBe(400);
    expect(cursor.json.error.code).toBe('INVALID_CURSOR');
    expect((await list(ts, '?limit=200')).json).toEqual({ sessions: [], next_cursor: null });
  });
});
