import { describe, expect, it } from 'vitest';
import type { SessionCall } from '../db/session-types';
import type { Toolscope } from '../server/create-toolscope';
import { testToolscopes } from '../server/testing/test-toolscopes';
import { decideApproval } from './approvals';
import { runToolCalls } from './handlers';
import {
  canonicalArguments,
  findSessionLoops,
  REPEATED_CALL_THRESHOLD,
  REPEATED_FAILURE_THRESHOLD,
} from './session-findings';
import { sessionTotals } from './session-json';
import { getSession, listSessions } from './sessions';

/**
 * The sessions API against a real SQLite file and the real executor: calls go in through
 * `POST /api/v1/tool-calls`'s handler, sessions come out of the trigger-kept aggregate.
 */
const toolscopes = testToolscopes('toolscope-sessions-api-');

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON answers whose shape they assert on
type Json = any;

const call = (id: string, name: string, args: unknown) => ({
  id,
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
});

async function run(ts: Toolscope, body: object): Promise<Json> {
  const answer = await runToolCalls(body, ts);
  expect(answer.status).toBe(200);
  return answer.body;
}

async function list(ts: Toolscope, query = ''): Promise<{ status: number; json: Json }> {
  const response = await listSessions(new Request(`http://127.0.0.1/api/v1/sessions${query}`), ts);
  return { status: response.status, json: await response.json() };
}

async function detail(ts: Toolscope, id: string): Promise<{ status: number; json: Json }> {
  const response = await getSession(id, ts);
  return { status: response.status, json: await response.json() };
}

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
  'failed',
  'first_call_at',
  'id',
  'imported',
  'last_call_at',
  'running',
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
    const ts = toolscopes.start(toolscopes.dataDir({ approvals: { user: 'alice' } }));
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
      [...SESSION_KEYS, 'assistant_messages', 'calls_truncated', 'findings', 'totals'].sort(),
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
    const ts = toolscopes.start(toolscopes.dataDir({ approvals: { user: 'alice' } }));
    const answer = await run(ts, {
      session_id: 'waiting-run',
      wait: false,
      tool_calls: [call('w1', 'write_file', { path: 'notes.txt', content: 'hi' })],
    });
    const traceId = answer.results[0].trace_id;
    await until(() => ts.approvals.get(traceId), 'the pending approval');
    await new Promise((resolve) => setTimeout(resolve, 30));
    const listed = (await list(ts)).json.sessions[0];
    expect(listed).toMatchObject({ id: 'waiting-run', running: 1, approval_wait_ms: 0 });
    const open = (await detail(ts, 'waiting-run')).json;
    expect(open.approval_wait_ms).toBeGreaterThanOrEqual(25);
    expect(open.totals.approval_wait_ms).toBe(open.approval_wait_ms);
    expect(open.calls[0]).toMatchObject({
      status: 'awaiting_approval',
      approval: { requested_at: expect.any(String), decided_at: null, decision: null },
    });

    const decided = await decideApproval(
      new Request(`http://127.0.0.1/api/v1/approvals/${traceId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ decision: 'deny', reason: 'not now' }),
      }),
      traceId,
      ts,
    );
    expect(decided.status).toBe(200);
    await until(() => ts.store.getSession('waiting-run')?.running === 0, 'the call to finish');
    const after = (await list(ts)).json.sessions[0];
    expect(after).toMatchObject({ running: 0, denied: 1 });
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

describe('loop detection', () => {
  const base = Date.UTC(2026, 10, 30, 12);
  let n = 0;
  const sessionCall = (overrides: Partial<SessionCall>): SessionCall => ({
    id: `t${++n}`,
    toolCallId: `c${n}`,
    sessionId: 's',
    actor: 'api',
    tool: 'search',
    status: 'succeeded',
    createdAt: base + n,
    finishedAt: base + n + 5,
    latencyMs: 5,
    attemptCount: 1,
    errorCode: null,
    flags: { retried: false, fellBack: false, truncated: false, faulted: false, replayed: false },
    argumentsPreview: null,
    sessionSeq: n,
    servedFrom: null,
    batchId: null,
    imported: false,
    approval: null,
    attempts: [],
    arguments: '{"q":"x"}',
    ...overrides,
  });

  it('flags the same tool with the same arguments, whatever their key order, at the threshold', () => {
    expect(REPEATED_CALL_THRESHOLD).toBe(3);
    const a = sessionCall({ arguments: '{"q":"x","page":{"n":1,"size":5}}' });
    const b = sessionCall({ arguments: '{"page":{"size":5,"n":1},"q":"x"}' });
    const other = sessionCall({ arguments: '{"q":"y"}' });
    const otherTool = sessionCall({ tool: 'fetch', arguments: '{"q":"x","page":{"n":1,"size":5}}' });
    expect(findSessionLoops([a, b, other, otherTool])).toEqual([]);
    const c = sessionCall({ arguments: '{"q":"x","page":{"n":1,"size":5}}' });
    expect(findSessionLoops([a, b, other, otherTool, c])).toEqual([
      { kind: 'repeated_call', tool: 'search', count: 3, traceIds: [a.id, b.id, c.id] },
    ]);
    expect(canonicalArguments('not json')).toBe('not json');
    expect(canonicalArguments(null)).toBe('null');
  });

  it('flags one tool failing at the threshold, whatever the arguments', () => {
    expect(REPEATED_FAILURE_THRESHOLD).toBe(3);
    const fails = [1, 2, 3].map((i) => sessionCall({ tool: 'fetch', status: 'failed', arguments: `{"u":${i}}` }));
    const denied = sessionCall({ tool: 'fetch', status: 'denied' });
    expect(findSessionLoops([fails[0] as SessionCall, fails[1] as SessionCall, denied])).toEqual([]);
    expect(findSessionLoops([...fails, denied])).toEqual([
      { kind: 'repeated_failure', tool: 'fetch', count: 3, traceIds: fails.map((f) => f.id) },
    ]);
  });

  it('sums first attempts as executing, later attempts and the gaps before them as retrying', () => {
    const attempt = (number: number, startedAt: number, durationMs: number) => ({
      number,
      tool: 'fetch',
      fallback: false,
      startedAt,
      durationMs,
      outcome: 'error' as const,
      error: null,
      backoffMs: null,
      fault: null,
    });
    const retried = sessionCall({ attempts: [attempt(1, 1, 10), attempt(2, 111, 20), attempt(3, 331, 5)] });
    const plain = sessionCall({ attempts: [attempt(1, 0, 7)] });
    const waited = sessionCall({
      approval: {
        rule: 'ask',
        requestedAt: base,
        expiresAt: null,
        decision: 'approved',
        by: 'api',
        decidedAt: base + 400,
        reason: null,
        ruleCreated: null,
      },
    });
    expect(sessionTotals([retried, plain, waited], base + 1000)).toEqual({
      executing_ms: 17,
      retrying_ms: 100 + 20 + 200 + 5,
      approval_wait_ms: 400,
    });
  });
});
