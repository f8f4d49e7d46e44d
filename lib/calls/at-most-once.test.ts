import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../executor/define-tool';
import { appOf, callApp, type Json } from '../http/testing/call-app';
import type { Toolscope } from '../server/create-toolscope';
import { testToolscopes } from '../server/testing/test-toolscopes';

/**
 * At most once per tool call id, through `POST /api/v1/tool-calls` of the real HTTP app, the real
 * executor and a real SQLite file: a request repeating a call's session and tool call id gets
 * that call's result instead of running it again — while it waits for a person, while it runs,
 * once it has finished, and after a restart.
 */
const toolscopes = testToolscopes('toolscope-once-');

/** What the tools did, in order: one entry per time a tool really ran. */
const effects: string[] = [];

/** Appends a note (a write: it waits for approval unless a rule allows it). */
const appendNote = defineTool({
  name: 'append_note',
  description: 'Appends a note.',
  sideEffect: 'write',
  inputSchema: z.object({ note: z.string() }),
  execute: ({ note }) => {
    effects.push(note);
    return { appended: note };
  },
});

/** Counts, slowly (a read: it runs at once). */
const slowCount = defineTool({
  name: 'slow_count',
  description: 'Counts after a while.',
  sideEffect: 'read',
  inputSchema: z.object({}),
  execute: async () => {
    effects.push('count');
    await new Promise((resolve) => setTimeout(resolve, 300));
    return { counted: effects.filter((effect) => effect === 'count').length };
  },
});

const TOOLS = { tools: [appendNote, slowCount] };

function start(config: object = {}) {
  effects.length = 0;
  const dir = toolscopes.dataDir(config);
  return { ts: toolscopes.start(dir, TOOLS), dir };
}

const call = (id: string, name: string, args: unknown) => ({
  id,
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
});

async function post(ts: Toolscope, body: unknown, token?: string): Promise<Json> {
  const response = await callApp(appOf(ts), 'POST', '/api/v1/tool-calls', { body, token });
  expect(response.status).toBe(200);
  return response.json();
}

async function approve(ts: Toolscope, traceId: string, token?: string) {
  const response = await callApp(appOf(ts), 'POST', `/api/v1/approvals/${traceId}`, {
    body: { decision: 'approve' },
    token,
  });
  expect(response.status).toBe(200);
}

async function until<T>(read: () => T | null | undefined | false, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const tracesOf = (ts: Toolscope, sessionId: string) => ts.store.list({ sessionId }).items;

describe('at most once per tool call id', () => {
  it('a repeat of a pending call is that call; once it has run, a repeat gets its result from the store', async () => {
    const { ts } = start();
    const body = { session_id: 's-once', wait: false, tool_calls: [call('call_note', 'append_note', { note: 'a' })] };
    const first = await post(ts, body);
    expect(first.results[0]).toMatchObject({ status: 'awaiting_approval' });
    const traceId = first.results[0].trace_id;
    expect(first.results[0].metadata.deduplicated).toBeUndefined();

    const again = await post(ts, body);
    expect(again.results[0]).toMatchObject({
      trace_id: traceId,
      tool_call_id: 'call_note',
      status: 'awaiting_approval',
      metadata: { deduplicated: true },
    });
    expect(ts.approvals.list().map((pending) => pending.traceId)).toEqual([traceId]);

    await approve(ts, traceId);
    await until(() => ts.store.get(traceId)?.status === 'succeeded');
    const after = await post(ts, { ...body, wait: true });
    expect(after.results[0]).toMatchObject({
      trace_id: traceId,
      status: 'succeeded',
      success: true,
      output: { appended: 'a' },
      metadata: { deduplicated: true },
    });
    expect(after.messages[0]).toEqual({
      role: 'tool',
      tool_call_id: 'call_note',
      content: ts.store.get(traceId)?.modelMessage,
    });
    expect(effects).toEqual(['a']);
    expect(tracesOf(ts, 's-once').map((trace) => trace.id)).toEqual([traceId]);
  });

  it('a repeat that waits is answered with the first when a person approves: one trace, one effect', async () => {
    const { ts } = start();
    const body = {
      session_id: 's-join',
      tool_use: [{ type: 'tool_use', id: 'toolu_01join', name: 'append_note', input: { note: 'b' } }],
    };
    const first = post(ts, body);
    const traceId = await until(() => ts.approvals.list()[0]?.traceId);
    const second = post(ts, body);
    // The repeat is waiting on the same call, not queued as another.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ts.approvals.list()).toHaveLength(1);
    await approve(ts, traceId);
    const [a, b] = await Promise.all([first, second]);
    expect(a.results[0]).toMatchObject({ trace_id: traceId, status: 'succeeded', output: { appended: 'b' } });
    expect(b.results[0]).toMatchObject({ trace_id: traceId, status: 'succeeded', metadata: { deduplicated: true } });
    expect(b.tool_results).toEqual(a.tool_results);
    expect(effects).toEqual(['b']);
    expect(tracesOf(ts, 's-join')).toHaveLength(1);
  });

  it('two requests at once for the same call share one run, in one batch too', async () => {
    const { ts } = start();
    const body = { session_id: 's-twice', tool_calls: [call('call_count', 'slow_count', {})] };
    const [a, b] = await Promise.all([post(ts, body), post(ts, body)]);
    expect(b.results[0].trace_id).toBe(a.results[0].trace_id);
    expect([a.results[0].metadata.deduplicated, b.results[0].metadata.deduplicated].sort()).toEqual([true, undefined]);
    expect(a.results[0].output).toEqual({ counted: 1 });
    expect(b.results[0].output).toEqual({ counted: 1 });
    // The same id twice in one request: one run, both answered.
    const both = await post(ts, {
      session_id: 's-twice-one',
      tool_calls: [call('call_same', 'slow_count', {}), call('call_same', 'slow_count', {})],
    });
    expect(both.results[1].trace_id).toBe(both.results[0].trace_id);
    expect(both.results[1]).toMatchObject({ status: 'succeeded', metadata: { deduplicated: true } });
    expect(effects).toEqual(['count', 'count']);
    expect(tracesOf(ts, 's-twice')).toHaveLength(1);
    expect(tracesOf(ts, 's-twice-one')).toHaveLength(1);
  });

  it('finds finished and pending calls after a restart', async () => {
    const config = { policies: { append_note: 'allow' } };
    const started = start(config);
    let ts = started.ts;
    const finished = { session_id: 's-restart', tool_calls: [call('call_done', 'append_note', { note: 'c' })] };
    const done = await post(ts, finished);
    expect(done.results[0]).toMatchObject({ status: 'succeeded' });
    const pending = {
      session_id: 's-restart',
      wait: false,
      tool_calls: [call('call_wait', 'write_file', { path: 'restart.txt', content: 'once\n' })],
    };
    const waiting = await post(ts, pending);
    expect(waiting.results[0]).toMatchObject({ status: 'awaiting_approval' });

    ts = await toolscopes.restart(ts, started.dir, TOOLS);
    const doneAgain = await post(ts, finished);
    expect(doneAgain.results[0]).toMatchObject({
      trace_id: done.results[0].trace_id,
      status: 'succeeded',
      output: { appended: 'c' },
      metadata: { deduplicated: true },
    });
    const waitingAgain = await post(ts, pending);
    expect(waitingAgain.results[0]).toMatchObject({
      trace_id: waiting.results[0].trace_id,
      status: 'awaiting_approval',
      metadata: { deduplicated: true },
    });
    // Waits as the first request would: answered once a person approves the call taken up again.
    const waitsForIt = post(ts, { ...pending, wait: true });
    await approve(ts, waiting.results[0].trace_id);
    expect((await waitsForIt).results[0]).toMatchObject({
      trace_id: waiting.results[0].trace_id,
      status: 'succeeded',
      metadata: { deduplicated: true },
    });
    expect(fs.readFileSync(path.join(ts.config.workspace, 'restart.txt'), 'utf8')).toBe('once\n');
    expect(effects).toEqual(['c']);
    expect(tracesOf(ts, 's-restart')).toHaveLength(2);
  });

  it("keeps each principal's calls apart: two agents reusing an id in one session are two calls", async () => {
    const { ts } = start({ policies: { append_note: 'allow' } });
    const one = ts.access.keys.create({ name: 'agent-one', role: 'agent' }).token;
    const two = ts.access.keys.create({ name: 'agent-two', role: 'agent' }).token;
    const body = { session_id: 's-shared', tool_calls: [call('call_1', 'append_note', { note: 'x' })] };
    const a = await post(ts, body, one);
    const b = await post(ts, body, two);
    expect(b.results[0].trace_id).not.toBe(a.results[0].trace_id);
    expect(b.results[0].metadata.deduplicated).toBeUndefined();
    const a2 = await post(ts, body, one);
    const b2 = await post(ts, body, two);
    expect(a2.results[0]).toMatchObject({ trace_id: a.results[0].trace_id, metadata: { deduplicated: true } });
    expect(b2.results[0]).toMatchObject({ trace_id: b.results[0].trace_id, metadata: { deduplicated: true } });
    expect(effects).toEqual(['x', 'x']);
  });

  it('leaves calls without a session, recording mode and replays as they were', async () => {
    const { ts } = start({ policies: { append_note: 'allow' } });
    const loose = { tool_calls: [call('call_loose', 'append_note', { note: 'n' })] };
    const l1 = await post(ts, loose);
    const l2 = await post(ts, loose);
    expect(l2.results[0].trace_id).not.toBe(l1.results[0].trace_id);
    expect(effects).toEqual(['n', 'n']);

    const recorded = await post(ts, {
      session_id: 's-rec',
      tool_calls: [call('call_r', 'append_note', { note: 'r' })],
    });
    const served = {
      session_id: 's-served',
      replay_from: 's-rec',
      tool_calls: [call('call_r', 'append_note', { note: 'r' })],
    };
    const s1 = await post(ts, served);
    const s2 = await post(ts, served);
    expect(s1.results[0]).toMatchObject({ status: 'succeeded', output: { appended: 'r' } });
    expect(s2.results[0].trace_id).not.toBe(s1.results[0].trace_id);
    expect(s2.results[0].metadata.deduplicated).toBeUndefined();
    expect(tracesOf(ts, 's-served')).toHaveLength(2);

    // A replay runs again (it is a new call), and the original stays what a repeat finds.
    const replay = await callApp(appOf(ts), 'POST', `/api/v1/traces/${recorded.results[0].trace_id}/replay`, {
      body: {},
    });
    expect(replay.status).toBe(200);
    expect(effects).toEqual(['n', 'n', 'r', 'r']);
    const repeat = await post(ts, { session_id: 's-rec', tool_calls: [call('call_r', 'append_note', { note: 'r' })] });
    expect(repeat.results[0]).toMatchObject({
      trace_id: recorded.results[0].trace_id,
      metadata: { deduplicated: true },
    });
    expect(effects).toEqual(['n', 'n', 'r', 'r']);
  });
});
