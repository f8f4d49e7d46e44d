import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../executor/define-tool';
import type { Toolscope } from '../../server/create-toolscope';
import { testToolscopes } from '../../server/testing/test-toolscopes';
import { createHttpApp, type HttpApp } from '../app';
import { callApp } from '../testing/call-app';

/**
 * Replay through the HTTP layer's app against a real SQLite file and the real executor: lineage,
 * sealed arguments holding a secret, edits, faults, approvals, session replay and comparison.
 */
const toolscopes = testToolscopes('toolscope-replay-');

const SECRET = 'Bearer sk-live-0123456789abcdefSECRET';

/** Local mode's one person: who every request here acts as, and who decides approvals. */
const LOCAL = { id: 'local', name: 'local', role: 'admin' };

/** What the test tools received, in call order. */
interface Seen {
  probe: { authorization: string; query: string }[];
  slow: { name: string; start: number; end: number }[];
  ticks: number;
}

/** What `gated` waits for: `closeGate()` makes a new one, `gate.open()` lets every waiting call through. */
const gate = { promise: Promise.resolve(), open: () => {} };
function closeGate() {
  gate.promise = new Promise<void>((resolve) => {
    gate.open = resolve;
  });
}

function testTools(seen: Seen) {
  return [
    defineTool({
      name: 'secret_probe',
      description: 'Receives a secret header; answers without echoing it',
      sideEffect: 'none',
      sensitivePaths: ['headers.authorization'],
      // The secret goes nowhere but here, whatever the query: a replay may edit the query and keep it.
      destination: () => 'secret_probe',
      inputSchema: z.object({ query: z.string(), headers: z.object({ authorization: z.string() }) }),
      execute: ({ query, headers }) => {
        seen.probe.push({ authorization: headers.authorization, query });
        return { query, authorized: headers.authorization.startsWith('Bearer ') };
      },
    }),
    defineTool({
      name: 'slow',
      description: 'Sleeps a little and says when it ran',
      sideEffect: 'none',
      inputSchema: z.object({ name: z.string(), ms: z.number().int().min(0).max(1000) }),
      execute: async ({ name, ms }) => {
        const start = performance.now();
        await new Promise((resolve) => setTimeout(resolve, ms));
        seen.slow.push({ name, start, end: performance.now() });
        return { name };
      },
    }),
    defineTool({
      name: 'gated',
      description: 'Answers once the test opens its gate',
      sideEffect: 'none',
      inputSchema: z.object({}),
      execute: async () => {
        await gate.promise;
        return { passed: true };
      },
    }),
    defineTool({
      name: 'tick',
      description: 'Counts its calls: a different answer each time',
      sideEffect: 'none',
      inputSchema: z.object({}),
      retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 },
      execute: () => ({ tick: ++seen.ticks }),
    }),
  ];
}

function start(config: object = {}) {
  const dir = toolscopes.dataDir(config);
  const seen: Seen = { probe: [], slow: [], ticks: 0 };
  const ts = toolscopes.start(dir, { tools: testTools(seen) });
  return { ts, seen, dir };
}

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON answers whose shape they assert on
type Json = any;

/** The app of each Toolscope (a restarted one gets its own). */
const apps = new WeakMap<Toolscope, HttpApp>();
function appOf(ts: Toolscope): HttpApp {
  let app = apps.get(ts);
  if (!app) {
    app = createHttpApp(ts);
    apps.set(ts, app);
  }
  return app;
}

/** A request to `ts`'s app, with `body` as JSON when given. */
const send = (ts: Toolscope, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  callApp(appOf(ts), method, path, { body, headers });

async function getJson(ts: Toolscope, path: string): Promise<Json> {
  return (await send(ts, 'GET', path)).json();
}

const call = (id: string, name: string, args: object) => ({
  id,
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
});

async function post(ts: Toolscope, body: object): Promise<Json> {
  const response = await send(ts, 'POST', '/api/v1/tool-calls', body);
  expect(response.status).toBe(200);
  return response.json();
}

async function replay(ts: Toolscope, id: string, body?: unknown) {
  const response = await send(ts, 'POST', `/api/v1/traces/${id}/replay`, body);
  return { status: response.status, text: await response.clone().text(), json: (await response.json()) as Json };
}

async function trace(ts: Toolscope, id: string): Promise<{ text: string; json: Json }> {
  const response = await send(ts, 'GET', `/api/v1/traces/${id}`);
  expect(response.status).toBe(200);
  const text = await response.text();
  return { text, json: JSON.parse(text) };
}

describe('POST /api/v1/traces/:id/replay', () => {
  it('runs the call again as a new trace in a session of its own, a replay of the original that lists it', async () => {
    const { ts, seen } = start();
    const first = await post(ts, { session_id: 'chat-1', tool_calls: [call('c1', 'tick', {})] });
    const originalId = first.results[0].trace_id;

    const replayed = await replay(ts, originalId);
    expect(replayed.status).toBe(200);
    // Exactly one entry of `results`, as POST /api/v1/tool-calls answers it.
    expect(Object.keys(replayed.json).sort()).toEqual(Object.keys(first.results[0]).sort());
    expect(replayed.json).toMatchObject({ tool: 'tick', status: 'succeeded', success: true, output: { tick: 2 } });
    expect(replayed.json.trace_id).not.toBe(originalId);
    expect(seen.ticks).toBe(2);

    const copy = (await trace(ts, replayed.json.trace_id)).json;
    expect(copy).toMatchObject({
      session_id: 'chat-1~replay-1',
      actor: 'replay',
      replay_of: originalId,
      session_seq: 1,
      served_from: null,
      flags: { replayed: true },
      // Made through the app: the replaying principal (local mode's one person).
      principal: LOCAL,
    });
    expect(copy.batch_id).toEqual(expect.any(String));
    const original = (await trace(ts, originalId)).json;
    expect(original).toMatchObject({
      replay_of: null,
      session_seq: 1,
      replays: [replayed.json.trace_id],
      principal: LOCAL,
    });

    const again = await replay(ts, originalId);
    expect((await trace(ts, originalId)).json.replays).toEqual([replayed.json.trace_id, again.json.trace_id]);
    expect(ts.store.get(again.json.trace_id)?.sessionId).toBe('chat-1~replay-2');
    // A replay of a replay lists under the one it replays, in a session of its own too.
    const nested = await replay(ts, again.json.trace_id);
    expect((await trace(ts, again.json.trace_id)).json.replays).toEqual([nested.json.trace_id]);
    expect(ts.store.get(nested.json.trace_id)?.sessionId).toBe('chat-1~replay-2~replay-1');

    // The recorded session holds the agent's call only: no loop finding for three runs of it.
    const recorded: Json = await getJson(ts, '/api/v1/sessions/chat-1');
    expect(recorded).toMatchObject({ findings: [], replay_of_session: null });
    expect(recorded.calls.map((c: Json) => c.id)).toEqual([originalId]);
    expect((await getJson(ts, '/api/v1/sessions?q=chat-1')).sessions.map((s: Json) => [s.id, s.calls])).toEqual([
      ['chat-1~replay-2~replay-1', 1],
      ['chat-1~replay-2', 1],
      ['chat-1~replay-1', 1],
      ['chat-1', 1],
    ]);
    // Each replay's session says what it replays.
    const own: Json = await getJson(ts, '/api/v1/sessions/chat-1~replay-1');
    expect(own.replay_of_session).toBe('chat-1');
    expect(own.calls.map((c: Json) => c.id)).toEqual([replayed.json.trace_id]);
    expect((await getJson(ts, '/api/v1/sessions/chat-1~replay-2~replay-1')).replay_of_session).toBe('chat-1~replay-2');
    // The agent repeating its call id is still answered from the call it made (at most once), not a replay.
    const repeat = await post(ts, { session_id: 'chat-1', tool_calls: [call('c1', 'tick', {})] });
    expect(repeat.results[0]).toMatchObject({ trace_id: originalId, metadata: { deduplicated: true } });
    expect(seen.ticks).toBe(4);
  });

  it('keeps a call without a session without one, and numbers replay sessions once each across a restart', async () => {
    const { ts, dir } = start();
    const loose = await post(ts, { tool_calls: [call('c1', 'tick', {})] });
    const looseCopy = await replay(ts, loose.results[0].trace_id);
    expect(ts.store.get(looseCopy.json.trace_id)?.sessionId).toBeNull();
    // The longest session id an agent may send: cut so that its replay's session is one too.
    const long = `s${'x'.repeat(255)}`;
    const longCall = await post(ts, { session_id: long, tool_calls: [call('c1', 'tick', {})] });
    const longCopy = await replay(ts, longCall.results[0].trace_id);
    const longSession = ts.store.get(longCopy.json.trace_id)?.sessionId as string;
    expect(longSession).toBe(`${long.slice(0, 242)}~replay-1`);
    expect((await getJson(ts, `/api/v1/sessions/${longSession}`)).replay_of_session).toBe(long);

    // Two replays of one session at once (both still uncommitted when the second starts): two numbers.
    const first = await post(ts, {
      session_id: 'run-9',
      tool_calls: [call('a', 'slow', { name: 'a', ms: 1 }), call('b', 'slow', { name: 'b', ms: 1 })],
    });
    const [a, b] = first.results.map((r: Json) => r.trace_id);
    const both = await Promise.all([
      replay(ts, a, { arguments: { name: 'a', ms: 50 } }),
      replay(ts, b, { arguments: { name: 'b', ms: 50 } }),
    ]);
    const sessions = both.map((r) => ts.store.get(r.json.trace_id)?.sessionId);
    expect(new Set(sessions)).toEqual(new Set(['run-9~replay-1', 'run-9~replay-2']));
    expect(both.map((r) => ts.store.get(r.json.trace_id)?.sessionSeq)).toEqual([1, 1]);

    // A number whose session is deleted is not given again in this process; after a restart the
    // numbers go on from the sessions there are.
    const third = await replay(ts, a);
    expect(ts.store.get(third.json.trace_id)?.sessionId).toBe('run-9~replay-3');
    expect((await send(ts, 'DELETE', '/api/v1/sessions/run-9~replay-2')).status).toBe(200);
    expect(ts.store.get((await replay(ts, b)).json.trace_id)?.sessionId).toBe('run-9~replay-4');
    const again = await toolscopes.restart(ts, dir, { tools: testTools({ probe: [], slow: [], ticks: 0 }) });
    const after = await replay(again, a);
    expect(again.store.get(after.json.trace_id)?.sessionId).toBe('run-9~replay-5');
    expect((await getJson(again, '/api/v1/sessions/run-9')).calls).toHaveLength(2);
  });

  it('with background: true, answers once the replay has begun, and the original lists it in flight', async () => {
    const { ts } = start({ policies: { write_file: 'ask' } });
    const first = await post(ts, { session_id: 'bg', tool_calls: [call('c1', 'gated', {})] });
    const originalId = first.results[0].trace_id;
    // The replay's tool does not answer until the gate opens, after a fault's delay.
    closeGate();
    const slow = { kind: 'latency', params: { ms: 20 } };
    const started = await replay(ts, originalId, { background: true, fault: slow });
    expect(started.status).toBe(200);
    expect(Object.keys(started.json).sort()).toEqual(Object.keys(first.results[0]).sort());
    expect(started.json).toMatchObject({ tool: 'gated', status: 'running', success: false, output: null });
    const replayId = started.json.trace_id;
    expect((await trace(ts, replayId)).json).toMatchObject({
      status: 'running',
      replay_of: originalId,
      session_id: 'bg~replay-1',
    });
    await expect
      .poll(async () => (await trace(ts, originalId)).json.replays_in_flight)
      .toEqual([{ id: replayId, status: 'running' }]);
    gate.open();
    await expect.poll(() => ts.store.get(replayId)?.status).toBe('succeeded');
    expect(ts.store.get(replayId)?.flags.faulted).toBe(true);
    expect((await trace(ts, originalId)).json).toMatchObject({ replays: [replayId], replays_in_flight: [] });

    // One waiting for a person is listed so too.
    const write = await post(ts, {
      wait: false,
      tool_calls: [call('w1', 'write_file', { path: 'notes/bg.md', content: 'x' })],
    });
    const writeId = write.results[0].trace_id;
    ts.approvals.decide(writeId, { decision: 'approve' }, LOCAL);
    await expect.poll(() => ts.store.get(writeId)?.status).toBe('succeeded');
    const pending = await replay(ts, writeId, { background: true });
    await expect.poll(() => ts.approvals.get(pending.json.trace_id)).not.toBeNull();
    await expect
      .poll(async () => (await trace(ts, writeId)).json.replays_in_flight)
      .toEqual([{ id: pending.json.trace_id, status: 'awaiting_approval' }]);
    ts.approvals.decide(pending.json.trace_id, { decision: 'deny', reason: 'once' }, LOCAL);
    await expect.poll(() => ts.store.get(pending.json.trace_id)?.status).toBe('denied');

    // A replay that ends before it begins (arguments that do not fit) answers its result.
    const invalid = await replay(ts, originalId, { background: true, arguments: { extra: 1 } });
    expect(invalid.json).toMatchObject({ status: 'failed', error: { code: 'INVALID_ARGUMENTS' } });
    expect((await replay(ts, originalId, { background: 'yes' })).json.error.message).toMatch(/^background: /);
  });

  it('gives the tool the real secret from the sealed arguments, and no answer, trace, list or export holds it', async () => {
    const { ts, seen } = start();
    const args = { query: 'balance', headers: { authorization: SECRET } };
    const first = await post(ts, { session_id: 'secret-s', tool_calls: [call('c1', 'secret_probe', args)] });
    const originalId = first.results[0].trace_id;
    expect((await trace(ts, originalId)).json.arguments.headers.authorization).toBe('[REDACTED]');

    const plain = await replay(ts, originalId);
    expect(plain.json).toMatchObject({ status: 'succeeded', output: { query: 'balance', authorized: true } });
    expect(seen.probe[1]).toEqual({ authorization: SECRET, query: 'balance' });

    // Edited: the masked value left as shown keeps the recorded secret; the other field changes.
    const shown = (await trace(ts, originalId)).json.arguments;
    const edited = await replay(ts, originalId, { arguments: { ...shown, query: 'history' } });
    expect(edited.json).toMatchObject({ status: 'succeeded', output: { query: 'history', authorized: true } });
    expect(seen.probe[2]).toEqual({ authorization: SECRET, query: 'history' });
    // As JSON text too, the way a model sends arguments.
    const asText = await replay(ts, originalId, { arguments: JSON.stringify({ ...shown, query: 'text' }) });
    expect(asText.json.status).toBe('succeeded');
    expect(seen.probe[3]).toEqual({ authorization: SECRET, query: 'text' });
    // A new value typed in place of the mask is what runs.
    const typed = await replay(ts, originalId, {
      arguments: { query: 'new', headers: { authorization: 'Bearer other' } },
    });
    expect(typed.json.status).toBe('succeeded');
    expect(seen.probe[4]).toEqual({ authorization: 'Bearer other', query: 'new' });

    const texts = [plain.text, edited.text, asText.text, typed.text, JSON.stringify(first)];
    for (const id of [originalId, plain.json.trace_id, edited.json.trace_id, asText.json.trace_id]) {
      const { text, json } = await trace(ts, id);
      expect(json.arguments.headers.authorization).toBe('[REDACTED]');
      texts.push(text);
    }
    texts.push(await (await send(ts, 'GET', '/api/v1/traces')).text());
    texts.push(await (await send(ts, 'GET', '/api/v1/traces/export')).text());
    const comparison = await send(ts, 'GET', `/api/v1/traces/${originalId}/compare/${edited.json.trace_id}`);
    expect(comparison.status).toBe(200);
    texts.push(await comparison.text());
    for (const text of texts) {
      expect(text).not.toContain('sk-live-0123456789abcdef');
      expect(text).not.toContain('SECRET');
    }
  });

  it('refuses a mask edited around (400 naming the field), and bad bodies, faults and arguments', async () => {
    const { ts, seen } = start();
    const first = await post(ts, {
      tool_calls: [call('c1', 'secret_probe', { query: 'q', headers: { authorization: SECRET } })],
    });
    const id = first.results[0].trace_id;
    const around = await replay(ts, id, { arguments: { query: 'q', headers: { authorization: 'x[REDACTED]' } } });
    expect(around.status).toBe(400);
    expect(around.json.error.code).toBe('INVALID_ARGUMENTS');
    expect(around.json.error.message).toMatch(/^arguments\.headers\.authorization: /);
    expect(around.json.error.details.errors).toEqual([
      expect.objectContaining({ path: 'arguments.headers.authorization' }),
    ]);

    const notJson = await replay(ts, id, { arguments: '{"query": ' });
    expect(notJson.status).toBe(400);
    expect(notJson.json.error.message).toMatch(/^arguments: is not valid JSON/);
    expect((await replay(ts, id, { arguments: [1, 2] })).json.error.message).toMatch(
      /^arguments: must be a JSON object/,
    );

    const unknownField = await replay(ts, id, { argument: {} });
    expect(unknownField.status).toBe(400);
    expect(unknownField.json.error).toMatchObject({ code: 'INVALID_REQUEST' });
    expect(unknownField.json.error.message).toMatch(/argument/);
    expect((await replay(ts, id, { wait: 'no' })).json.error.message).toMatch(/^wait: /);

    const badFault = await replay(ts, id, { fault: { kind: 'fail_first', params: { n: 0 } } });
    expect(badFault.status).toBe(400);
    expect(badFault.json.error.message).toMatch(/^fault\.params\.n: /);
    expect(badFault.json.error.details.errors).toEqual([expect.objectContaining({ path: 'fault.params.n' })]);
    expect((await replay(ts, id, { fault: { kind: 'meteor' } })).json.error.message).toMatch(/^fault\.kind: /);

    // Arguments that do not fit the tool run through validation like any call: a failed trace.
    const invalid = await replay(ts, id, { arguments: { query: 5, headers: { authorization: 'Bearer typed' } } });
    expect(invalid.status).toBe(200);
    expect(invalid.json).toMatchObject({ status: 'failed', error: { code: 'INVALID_ARGUMENTS', stage: 'validate' } });
    // With a recorded secret kept, where they would send it cannot be told: refused, nothing recorded.
    const invalidKept = await replay(ts, id, { arguments: { query: 5, headers: { authorization: '[REDACTED]' } } });
    expect(invalidKept.status).toBe(400);
    expect(invalidKept.json.error).toMatchObject({ code: 'SECRET_DESTINATION_CHANGED' });
    expect(invalidKept.json.error.message).toMatch(/^arguments\.headers\.authorization: .*do not fit secret_probe/);
    expect(seen.probe).toHaveLength(1);

    const missing = await replay(ts, 'no-such-trace');
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe('NOT_FOUND');
    // A JSON body must say so: refused by the body limit before the handler reads it.
    const plainText = await send(ts, 'POST', `/api/v1/traces/${id}/replay`, '{}', { 'content-type': 'text/plain' });
    expect(plainText.status).toBe(415);
    expect((await plainText.json()).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('applies a one-off fault to that replay only', async () => {
    const { ts } = start();
    const first = await post(ts, { tool_calls: [call('c1', 'tick', {})] });
    const id = first.results[0].trace_id;
    const faulted = await replay(ts, id, { fault: { kind: 'fail_first', params: { n: 2 } } });
    expect(faulted.json).toMatchObject({ status: 'succeeded', attempts: 3, metadata: { faulted: true } });
    const attempts = (await trace(ts, faulted.json.trace_id)).json.attempts;
    expect(attempts.map((a: Json) => a.fault?.kind ?? null)).toEqual(['fail_first', 'fail_first', null]);
    expect(attempts[0].fault.rule_id).toBeNull();
    const clean = await replay(ts, id);
    expect(clean.json).toMatchObject({ status: 'succeeded', attempts: 1, metadata: { faulted: false } });
  });

  it("sends a side-effectful replay through the approval queue again, with the model's arguments", async () => {
    const { ts } = start({ policies: { write_file: 'ask' } });
    const first = await post(ts, {
      wait: false,
      tool_calls: [call('w1', 'write_file', { path: 'notes/a.md', content: 'hello' })],
    });
    const originalId = first.results[0].trace_id;
    // The approver edited what ran; a replay still sends what the model sent.
    const edit = { path: 'notes/a.md', content: 'edited by alice' };
    const decided = ts.approvals.decide(originalId, { decision: 'approve', arguments: edit }, LOCAL);
    expect(decided.ok).toBe(true);
    await expect.poll(() => ts.store.get(originalId)?.status).toBe('succeeded');
    expect(ts.store.get(originalId)?.editedArguments).toEqual(edit);

    const replayed = await replay(ts, originalId, { wait: false });
    expect(replayed.status).toBe(200);
    expect(replayed.json).toMatchObject({ status: 'awaiting_approval', tool: 'write_file', success: false });
    expect(replayed.json.tool_call_id).toMatch(/^call_/);
    const pending = ts.approvals.list();
    expect(pending.map((p) => p.traceId)).toEqual([replayed.json.trace_id]);
    expect(pending[0]).toMatchObject({ actor: 'replay', arguments: { path: 'notes/a.md', content: 'hello' } });
    ts.approvals.decide(replayed.json.trace_id, { decision: 'deny', reason: 'not twice' }, LOCAL);
    await expect.poll(() => ts.store.get(replayed.json.trace_id)?.status).toBe('denied');
    expect(ts.store.get(replayed.json.trace_id)?.replayOf).toBe(originalId);
  });
});

describe('a replay awaiting approval across a restart', () => {
  it('stays a replay of its original, in its batch', async () => {
    const { ts, dir } = start({ policies: { write_file: 'ask' } });
    const first = await post(ts, {
      wait: false,
      tool_calls: [call('w1', 'write_file', { path: 'notes/b.md', content: 'once' })],
    });
    const originalId = first.results[0].trace_id;
    ts.approvals.decide(originalId, { decision: 'approve' }, LOCAL);
    await expect.poll(() => ts.store.get(originalId)?.status).toBe('succeeded');
    const replayed = await replay(ts, originalId, { wait: false });
    const before = ts.store.get(replayed.json.trace_id);
    expect(before).toMatchObject({ status: 'awaiting_approval', replayOf: originalId });
    const again = await toolscopes.restart(ts, dir);
    expect(again.resumedAtStart).toBe(1);
    const resumed = again.store.get(replayed.json.trace_id);
    expect(resumed).toMatchObject({
      status: 'awaiting_approval',
      actor: 'replay',
      replayOf: originalId,
      batchId: before?.batchId,
      sessionSeq: before?.sessionSeq,
      flags: { replayed: true },
    });
    expect(again.store.replays(originalId)).toEqual([replayed.json.trace_id]);
  });

  it('keeps its one-off fault: approved after the restart, it runs with it', async () => {
    const { ts, dir } = start({ policies: { write_file: 'ask' } });
    const first = await post(ts, {
      wait: false,
      tool_calls: [call('w1', 'write_file', { path: 'notes/c.md', content: 'once' })],
    });
    const originalId = first.results[0].trace_id;
    ts.approvals.decide(originalId, { decision: 'approve' }, LOCAL);
    await expect.poll(() => ts.store.get(originalId)?.status).toBe('succeeded');
    const fault = { kind: 'exit_code', params: { code: 3, stderr: 'disk on fire' } };
    const replayed = await replay(ts, originalId, { wait: false, fault });
    expect(ts.store.get(replayed.json.trace_id)?.metadata).toEqual({ replay_fault: fault });
    const again = await toolscopes.restart(ts, dir);
    expect(again.resumedAtStart).toBe(1);
    await expect.poll(() => again.approvals.get(replayed.json.trace_id)).not.toBeNull();
    again.approvals.decide(replayed.json.trace_id, { decision: 'approve' }, LOCAL);
    await expect.poll(() => again.store.get(replayed.json.trace_id)?.status).toBe('failed');
    const ran = (await trace(again, replayed.json.trace_id)).json;
    expect(ran.attempts[0].fault).toMatchObject({ rule_id: null, kind: 'exit_code', code: 3 });
    expect(ran.flags.faulted).toBe(true);
    expect(ran.stderr).toContain('disk on fire');
  });
});

describe('POST /api/v1/sessions/:id/replay', () => {
  it('replays every call in recorded order into a new session, batch by batch, each a replay of its original', async () => {
    const { ts, seen } = start();
    const session = 'agent-run';
    const first = await post(ts, {
      session_id: session,
      tool_calls: [call('a', 'slow', { name: 'a', ms: 40 }), call('b', 'slow', { name: 'b', ms: 40 })],
    });
    const second = await post(ts, { session_id: session, tool_calls: [call('c', 'slow', { name: 'c', ms: 5 })] });
    const third = await post(ts, {
      session_id: session,
      tool_calls: [call('d', 'slow', { name: 'd', ms: 30 }), call('e', 'tick', {})],
    });
    const originals = [...first.results, ...second.results, ...third.results].map((r: Json) => r.trace_id);
    seen.slow.length = 0;

    const response = await send(ts, 'POST', `/api/v1/sessions/${session}/replay`, {});
    expect(response.status).toBe(200);
    const body: Json = await response.json();
    expect(body.session_id).toEqual(expect.any(String));
    expect(body.session_id).not.toBe(session);
    expect(body.results.map((r: Json) => [r.tool, r.status])).toEqual([
      ['slow', 'succeeded'],
      ['slow', 'succeeded'],
      ['slow', 'succeeded'],
      ['slow', 'succeeded'],
      ['tick', 'succeeded'],
    ]);
    expect(body.results.map((r: Json) => r.output?.name ?? null)).toEqual(['a', 'b', 'c', 'd', null]);

    const copies = body.results.map((r: Json) => ts.store.get(r.trace_id));
    expect(copies.map((t: Json) => t.replayOf)).toEqual(originals);
    expect((await getJson(ts, `/api/v1/sessions/${body.session_id}`)).replay_of_session).toBe(session);
    expect(copies.map((t: Json) => [t.sessionId, t.actor])).toEqual(Array(5).fill([body.session_id, 'replay']));
    expect(copies.map((t: Json) => t.sessionSeq).sort()).toEqual([1, 2, 3, 4, 5]);
    // Calls of one batch share a new batch id; each batch its own.
    const batchIds = copies.map((t: Json) => t.batchId);
    expect(batchIds[0]).toBe(batchIds[1]);
    expect(batchIds[3]).toBe(batchIds[4]);
    expect(new Set(batchIds).size).toBe(3);
    expect(batchIds).not.toContain(ts.store.get(originals[0])?.batchId);
    // a and b ran together; c only after both ended, d only after c.
    const ran: Json = Object.fromEntries(seen.slow.map((s) => [s.name, s]));
    expect(ran.b.start).toBeLessThan(ran.a.end);
    expect(ran.c.start).toBeGreaterThanOrEqual(Math.max(ran.a.end, ran.b.end));
    expect(ran.d.start).toBeGreaterThanOrEqual(ran.c.end);

    // The comparison pairs each call with its replay; only tick's output changed.
    const comparison: Json = await getJson(ts, `/api/v1/sessions/${session}/compare/${body.session_id}`);
    expect(comparison).toMatchObject({ session_id: session, other_session_id: body.session_id });
    expect(comparison.pairs.map((p: Json) => [p.original.id, p.replay.id])).toEqual(
      originals.map((id: string, index: number) => [id, body.results[index].trace_id]),
    );
    expect(comparison.pairs.map((p: Json) => [p.outcome_changed, p.output_changed])).toEqual([
      [false, false],
      [false, false],
      [false, false],
      [false, false],
      [false, true],
    ]);
    expect(comparison.pairs[0].compare_url).toBe(`/traces/${originals[0]}/compare/${body.results[0].trace_id}`);
    expect(comparison.pairs[0].original).toMatchObject({ tool: 'slow', session_seq: 1, served_from: null });
  });

  it('pairs by position what does not replay, and says what is missing; 404 for a session without calls', async () => {
    const { ts } = start();
    await post(ts, { session_id: 'one', tool_calls: [call('x', 'tick', {}), call('y', 'tick', {})] });
    await post(ts, { session_id: 'two', tool_calls: [call('x', 'tick', {})] });
    const comparison: Json = await getJson(ts, '/api/v1/sessions/two/compare/one');
    expect(
      comparison.pairs.map((p: Json) => [p.original?.tool_call_id ?? null, p.replay?.tool_call_id ?? null]),
    ).toEqual([
      ['x', 'x'],
      [null, 'y'],
    ]);
    expect(comparison.pairs[0]).toMatchObject({ outcome_changed: false, output_changed: true });
    expect(comparison.pairs[1]).toMatchObject({ outcome_changed: true, output_changed: true, compare_url: null });

    expect((await send(ts, 'GET', '/api/v1/sessions/one/compare/nobody')).status).toBe(404);
    const none = await send(ts, 'POST', '/api/v1/sessions/nobody/replay');
    expect(none.status).toBe(404);
    expect(((await none.json()) as Json).error.code).toBe('NOT_FOUND');
    const bad = await send(ts, 'POST', '/api/v1/sessions/one/replay', { fault: { kind: 'latency' } });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as Json).error.message).toMatch(/^fault\.params\.ms: /);
  });
});

describe('GET /api/v1/traces/:id/compare/:other', () => {
  it('answers both traces and what changed between them; 404 when either is unknown', async () => {
    const { ts } = start();
    const first = await post(ts, { tool_calls: [call('c1', 'tick', {})] });
    const id = first.results[0].trace_id;
    const replayed = await replay(ts, id);
    const response = await send(ts, 'GET', `/api/v1/traces/${id}/compare/${replayed.json.trace_id}`);
    expect(response.status).toBe(200);
    const body: Json = await response.json();
    expect(body.trace).toMatchObject({ id, replays: [replayed.json.trace_id] });
    expect(body.other).toMatchObject({ id: replayed.json.trace_id, replay_of: id });
    expect(body.changes).toMatchObject({ outcome: false, output: true, arguments: false, status: false });
    expect(body.changes.latency_ms_delta).toEqual(expect.any(Number));
    expect((await send(ts, 'GET', `/api/v1/traces/${id}/compare/nope`)).status).toBe(404);
    expect((await send(ts, 'GET', `/api/v1/traces/nope/compare/${id}`)).status).toBe(404);
  });
});

describe('session_seq', () => {
  it('is on the live trace of a call still running', async () => {
    const { ts } = start();
    await post(ts, { session_id: 'live', tool_calls: [call('a', 'tick', {})] });
    const running = post(ts, { session_id: 'live', tool_calls: [call('b', 'slow', { name: 'b', ms: 300 })] });
    await expect.poll(() => ts.executor.inFlightIds()).toHaveLength(1);
    const live = (await trace(ts, ts.executor.inFlightIds()[0] as string)).json;
    expect(live).toMatchObject({ status: 'running', session_seq: 2 });
    await running;
  });

  it('numbers a session on from where it was after a restart', async () => {
    const { ts, dir } = start();
    await post(ts, { session_id: 'long', tool_calls: [call('a', 'tick', {}), call('b', 'tick', {})] });
    const again = await toolscopes.restart(ts, dir, { tools: testTools({ probe: [], slow: [], ticks: 0 }) });
    const later = await post(again, { session_id: 'long', tool_calls: [call('c', 'tick', {})] });
    expect((await trace(again, later.results[0].trace_id)).json.session_seq).toBe(3);
    const listed: Json = await getJson(again, '/api/v1/traces?session=long');
    expect(listed.items.map((item: Json) => [item.tool_call_id, item.session_seq])).toEqual([
      ['c', 3],
      ['b', 2],
      ['a', 1],
    ]);
  });
});
