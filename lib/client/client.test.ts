import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { crowding } from '../hardening/testing/machine-pace';
import { type ServedToolscope, serveToolscope } from '../http/testing/serve-toolscope';
import type { ToolscopeEvent } from './api-types';
import { createToolscopeClient, type ToolscopeClient } from './create-toolscope-client';
import { isToolscopeError, type ToolscopeError } from './toolscope-error';

// A build-time marker of Next's: it throws when imported outside Next's server build.
vi.mock('server-only', () => ({}));

/**
 * The client against a real Toolscope on a loopback port (the agent path and the real route
 * files, one SQLite file): every method, its errors, the event stream and its reconnection.
 */
let served: ServedToolscope;
let client: ToolscopeClient;

beforeAll(async () => {
  served = await serveToolscope();
  client = createToolscopeClient({ baseUrl: `${served.baseUrl}/` });
});

afterAll(() => served?.close());

const calc = (id: string, expression: string) => ({
  id,
  type: 'function' as const,
  function: { name: 'calculator', arguments: JSON.stringify({ expression }) },
});

/** Resolves when `predicate` holds for the events collected so far. */
async function until<T>(events: T[], predicate: (events: T[]) => boolean, ms = 5_000) {
  const deadline = Date.now() + ms;
  while (!predicate(events)) {
    if (Date.now() > deadline) throw new Error(`timed out; got ${JSON.stringify(events)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function rejection(promise: Promise<unknown>): Promise<ToolscopeError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!isToolscopeError(error)) throw new Error(`expected a ToolscopeError, got ${String(error)}`);
  return error;
}

describe('running tool calls', () => {
  it('runs an OpenAI batch in input order, with the tool messages, one failure not losing the others', async () => {
    const answer = await client.runToolCalls({
      session_id: 'client-openai',
      assistant_message: { text: 'Two sums, one of them broken.', model: 'test-model' },
      tool_calls: [calc('call_a', '6*7'), calc('call_b', '(1 +'), calc('call_c', '2^10')],
    });
    expect(answer.results.map((r) => [r.tool_call_id, r.status])).toEqual([
      ['call_a', 'succeeded'],
      ['call_b', 'failed'],
      ['call_c', 'succeeded'],
    ]);
    expect(answer.results[0]?.output).toMatchObject({ result: 42 });
    expect(answer.results[1]?.error?.code).toBeTruthy();
    expect(answer.messages.map((m) => [m.role, m.tool_call_id])).toEqual([
      ['tool', 'call_a'],
      ['tool', 'call_b'],
      ['tool', 'call_c'],
    ]);
    const trace = await client.getTrace(answer.results[0]!.trace_id);
    expect(trace).toMatchObject({ tool: 'calculator', status: 'succeeded', session_id: 'client-openai' });
    expect(trace.model_message).toBe(answer.messages[0]?.content);
  });

  it('runs Anthropic tool_use blocks and answers tool_result blocks', async () => {
    const answer = await client.runToolCalls({
      tool_use: [
        { type: 'tool_use', id: 'toolu_1', name: 'calculator', input: { expression: '3*3' } },
        { type: 'tool_use', id: 'toolu_2', name: 'no_such_tool', input: {} },
      ],
    });
    expect(answer.tool_results).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_1', content: expect.stringContaining('9'), is_error: false },
      { type: 'tool_result', tool_use_id: 'toolu_2', content: expect.stringContaining('UNKNOWN_TOOL'), is_error: true },
    ]);
    expect(answer.results[1]?.error?.code).toBe('UNKNOWN_TOOL');
  });

  it('throws the API error for a malformed batch, with its code and status', async () => {
    const error = await rejection(client.runToolCalls({ tool_calls: [] }));
    expect(error).toMatchObject({ code: 'INVALID_REQUEST', status: 400 });
    expect(error.message).toMatch(/^tool_calls/);
  });
});

describe('tools, traces', () => {
  it('lists the tools in each format', async () => {
    const own = await client.listTools();
    expect(own.find((tool) => tool.name === 'write_file')).toMatchObject({ side_effect: 'write', policy: 'ask' });
    const openai = await client.listTools({ format: 'openai' });
    expect(openai.find((tool) => tool.function.name === 'calculator')?.type).toBe('function');
    const anthropic = await client.listTools({ format: 'anthropic' });
    expect(anthropic.find((tool) => tool.name === 'calculator')?.input_schema.type).toBe('object');
  });

  it('lists traces by session with keyset pages, and says NOT_FOUND for an unknown trace', async () => {
    await client.runToolCalls({ session_id: 'client-list', tool_calls: [calc('l1', '1+1'), calc('l2', '2+2')] });
    await client.runToolCalls({ session_id: 'client-list', tool_calls: [calc('l3', '3+3')] });
    const first = await client.listTraces({ session: 'client-list', limit: 2 });
    expect(first.items).toHaveLength(2);
    expect(first.next_cursor).not.toBeNull();
    const second = await client.listTraces({ session: 'client-list', limit: 2, cursor: first.next_cursor! });
    const ids = [...first.items, ...second.items].map((item) => item.tool_call_id).sort();
    expect(ids).toEqual(['l1', 'l2', 'l3']);
    const missing = await rejection(client.getTrace('no-such-trace'));
    expect(missing).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    const badCursor = await rejection(client.listTraces({ cursor: 'abc' }));
    expect(badCursor).toMatchObject({ code: 'INVALID_CURSOR', status: 400 });
  });

  it('says NETWORK_ERROR with status 0 when nothing answers', async () => {
    const nowhere = createToolscopeClient({ baseUrl: 'http://127.0.0.1:1' });
    expect(await rejection(nowhere.listTools())).toMatchObject({ code: 'NETWORK_ERROR', status: 0 });
  });
});

describe('approvals', () => {
  const write = (id: string, file: string) => ({
    id,
    type: 'function' as const,
    function: { name: 'write_file', arguments: { path: file, content: 'hello' } },
  });

  it('answers a waiting call at once with wait: false, lists it, and waitForApproval resolves once approved and run', async () => {
    const answer = await client.runToolCalls({
      session_id: 'client-approve',
      wait: false,
      tool_calls: [write('w1', 'notes/a.md')],
    });
    const pending = answer.results[0]!;
    expect(pending.status).toBe('awaiting_approval');
    const listed = await client.listApprovals();
    expect(listed.find((a) => a.trace_id === pending.trace_id)).toMatchObject({
      tool: 'write_file',
      session_id: 'client-approve',
    });
    const waited = client.waitForApproval(pending.trace_id);
    // The wait is open on the stream before the decision.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const decided = await client.decideApproval(pending.trace_id, { decision: 'approve' });
    expect(decided.id).toBe(pending.trace_id);
    const trace = await waited;
    expect(trace).toMatchObject({ status: 'succeeded', approval: { decision: 'approved', by: 'local' } });
    expect(trace.model_message).toContain('notes/a.md');
  });

  it('resolves at once for a call decided before the wait began, and with until: decided on a denial', async () => {
    const { results } = await client.runToolCalls({ wait: false, tool_calls: [write('w2', 'notes/b.md')] });
    const id = results[0]!.trace_id;
    await client.decideApproval(id, { decision: 'deny', reason: 'not now' });
    const trace = await client.waitForApproval(id, { until: 'decided' });
    expect(trace.status).toBe('denied');
    expect(trace.approval?.reason).toBe('not now');
    const again = await rejection(client.decideApproval(id, { decision: 'approve' }));
    expect(again).toMatchObject({ code: 'NOT_PENDING', status: 409 });
  });

  it('gives up with TIMEOUT, ABORTED, or the NOT_FOUND of an unknown trace', async () => {
    const { results } = await client.runToolCalls({ wait: false, tool_calls: [write('w3', 'notes/c.md')] });
    const id = results[0]!.trace_id;
    expect(await rejection(client.waitForApproval(id, { timeoutMs: 150 }))).toMatchObject({ code: 'TIMEOUT' });
    const controller = new AbortController();
    const aborted = client.waitForApproval(id, { signal: controller.signal });
    controller.abort();
    expect(await rejection(aborted)).toMatchObject({ code: 'ABORTED' });
    expect(await rejection(client.waitForApproval('no-such-trace'))).toMatchObject({ code: 'NOT_FOUND', status: 404 });
    await client.decideApproval(id, { decision: 'deny' });
  });
});

describe('the event stream', () => {
  it('delivers the begin and finish of calls as they happen, filtered by tool, until unsubscribed', async () => {
    const events: ToolscopeEvent[] = [];
    let opened = 0;
    const unsubscribe = client.subscribe({ tool: 'calculator' }, (event) => events.push(event), {
      onOpen: () => opened++,
    });
    await until([opened], () => opened === 1);
    await client.runToolCalls({ tool_calls: [calc('e1', '5*5')] });
    await client.runToolCalls({
      tool_use: [{ type: 'tool_use', id: 'toolu_rf', name: 'read_file', input: { path: 'x' } }],
    });
    await until(events, (e) => e.some((x) => x.event === 'trace' && x.data.type === 'finish'));
    unsubscribe();
    const trace = events.filter((e) => e.event === 'trace');
    expect(trace.map((e) => e.data.type)).toEqual(['begin', 'finish']);
    expect(trace.every((e) => e.event === 'trace' && e.data.tool === 'calculator')).toBe(true);
    expect(trace.at(-1)?.data).toMatchObject({ status: 'succeeded' });
    // After unsubscribing, nothing more. The server writes each batch to every stream at once: by
    // the time a stream still open has heard of a call made after e2, the closed one would have
    // heard of e2.
    const later: ToolscopeEvent[] = [];
    let laterOpened = 0;
    const stopLater = client.subscribe({ tool: 'calculator' }, (event) => later.push(event), {
      onOpen: () => laterOpened++,
    });
    await until([laterOpened], () => laterOpened === 1);
    await client.runToolCalls({ tool_calls: [calc('e2', '6*6')] });
    await client.runToolCalls({ tool_calls: [calc('e3', '7*7')] });
    await until(later, (e) => e.filter((x) => x.event === 'trace' && x.data.type === 'finish').length === 2);
    stopLater();
    expect(events.filter((e) => e.event === 'trace')).toHaveLength(2);
  });

  it('reconnects after the server drops the connection, and hears of calls made after', async () => {
    const events: ToolscopeEvent[] = [];
    const errors: unknown[] = [];
    let opened = 0;
    const unsubscribe = client.subscribe({}, (event) => events.push(event), {
      onOpen: () => opened++,
      onError: (error) => errors.push(error),
      retryMs: 20,
    });
    await until([opened], () => opened === 1);
    served.dropEventStreams();
    await until([opened], () => opened === 2);
    expect(errors.length).toBeGreaterThan(0);
    await client.runToolCalls({ session_id: 'client-reconnect', tool_calls: [calc('r1', '7*7')] });
    await until(events, (e) => e.some((x) => x.event === 'trace' && x.data.type === 'finish'));
    unsubscribe();
  });

  it('takes a stream silent for three heartbeats as dead and reconnects (a proxy that stalls)', async () => {
    const quick = await serveToolscope(undefined, {}, { heartbeatMs: 100 });
    // A TCP proxy in front of the server that can stop forwarding what the server sends on the connections it has.
    const open = new Set<net.Socket>();
    const stalled = new Set<net.Socket>();
    const proxy = net.createServer((socket) => {
      const upstream = net.connect(Number(new URL(quick.baseUrl).port), '127.0.0.1');
      open.add(socket);
      socket.pipe(upstream);
      upstream.on('data', (chunk) => {
        if (!stalled.has(socket)) socket.write(chunk);
      });
      const close = () => {
        socket.destroy();
        upstream.destroy();
      };
      socket.on('close', close);
      upstream.on('close', close);
      socket.on('error', close);
      upstream.on('error', close);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const through = createToolscopeClient({ baseUrl: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}` });
      let opened = 0;
      const unsubscribe = through.subscribe({}, () => {}, { onOpen: () => opened++, retryMs: 10 });
      await until([opened], () => opened === 1);
      await new Promise((resolve) => setTimeout(resolve, 150));
      for (const socket of open) stalled.add(socket);
      const stalledAt = Date.now();
      // Three missed heartbeats (300 ms) after the last byte: a new connection (within 3 s on the
      // reference machine at rest, stretched by the machine's crowding).
      await until([opened], () => opened === 2, 3_000 * crowding());
      expect(Date.now() - stalledAt).toBeGreaterThanOrEqual(200);
      unsubscribe();
    } finally {
      proxy.close();
      await quick.close();
      (globalThis as { __toolscope?: unknown }).__toolscope = served.ts;
    }
  });

  it('ends a subscription the server refuses for good (no token), and authenticates with one', async () => {
    const token = 'a-client-test-token-that-is-long-enough';
    const guarded = await serveToolscope(undefined, { TOOLSCOPE_TOKEN: token });
    try {
      const anonymous = createToolscopeClient({ baseUrl: guarded.baseUrl });
      expect(await rejection(anonymous.listTools())).toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
      const refused = await new Promise<{ error: unknown; willRetry: boolean }>((resolve) => {
        anonymous.subscribe({}, () => {}, { onError: (error, willRetry) => resolve({ error, willRetry }) });
      });
      expect(refused.willRetry).toBe(false);
      expect(refused.error).toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
      const authorized = createToolscopeClient({ baseUrl: guarded.baseUrl, token });
      const { results } = await authorized.runToolCalls({ tool_calls: [calc('t1', '1+2')] });
      expect(results[0]?.status).toBe('succeeded');
    } finally {
      await guarded.close();
      // The shared server's Toolscope again for the route files.
      (globalThis as { __toolscope?: unknown }).__toolscope = served.ts;
    }
  });
});
