import fs from 'node:fs';
import path from 'node:path';
import {
  CallToolResultSchema,
  type Progress,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../executor/define-tool';
import { crowding } from '../../hardening/testing/machine-pace';
import type { Toolscope } from '../../server/create-toolscope';
import { testToolscopes } from '../../server/testing/test-toolscopes';
import { type McpTestServer, startMcpTestServer } from './testing/mcp-test-server';

/**
 * `/mcp` on the agent path of a real Toolscope (SQLite file, executor, approvals queue) on a
 * loopback port, driven by the official SDK's `Client` over `StreamableHTTPClientTransport`.
 */
const toolscopes = testToolscopes('toolscope-mcp-');
let server: McpTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Runs until its call is cancelled; says so on stdout first. */
const waitForCancel = defineTool({
  name: 'wait_for_cancel',
  description: 'Waits until the call is cancelled.',
  inputSchema: z.object({}),
  sideEffect: 'none',
  timeoutMs: 60_000,
  execute: (_input, ctx) =>
    new Promise((_resolve, reject) => {
      ctx.output.write('stdout', 'waiting\n');
      ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
    }),
});

async function start(options: Parameters<typeof startMcpTestServer>[1] = {}) {
  const ts = toolscopes.start(toolscopes.dataDir(), { tools: [waitForCancel] });
  server = await startMcpTestServer(ts, options);
  return { ts, server };
}

/** Polls until `read` gives something, for what is recorded after the answer (a cancelled call). */
async function until<T>(read: () => T | null | undefined | Promise<T | null | undefined>, ms = 5_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function onlyTrace(ts: Toolscope, sessionId: string) {
  const items = ts.store.list({ sessionId }).items;
  expect(items).toHaveLength(1);
  return ts.store.get(items[0]!.id)!;
}

describe('Toolscope as an MCP server', () => {
  it('tools/list: every registered tool with its JSON Schema and annotations from its side effect', async () => {
    const { ts, server } = await start();
    const { client } = await server.connect();
    expect(client.getServerVersion()).toMatchObject({ name: 'toolscope' });
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: true });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      ts.executor.registry
        .list()
        .map((tool) => tool.name)
        .sort(),
    );
    const calculator = tools.find((tool) => tool.name === 'calculator')!;
    expect(calculator.inputSchema).toMatchObject({
      type: 'object',
      properties: { expression: { type: 'string' } },
      required: ['expression'],
      additionalProperties: false,
    });
    expect(calculator.annotations).toEqual({ title: 'Calculator', readOnlyHint: true, destructiveHint: false });
    expect(tools.find((tool) => tool.name === 'read_file')?.annotations).toMatchObject({ readOnlyHint: true });
    expect(tools.find((tool) => tool.name === 'write_file')?.annotations).toEqual({
      title: 'Write file',
      readOnlyHint: false,
      destructiveHint: true,
    });
    expect(tools.find((tool) => tool.name === 'run_shell')?.annotations).toMatchObject({ destructiveHint: true });
  });

  it('tools/call: runs through the executor in the MCP session as actor mcp; JSON output as structuredContent', async () => {
    const { ts, server } = await start();
    const { client, transport } = await server.connect();
    const result = await client.callTool({ name: 'calculator', arguments: { expression: '6*7' } });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toMatchObject({ result: 42 });
    const text = (result.content as { type: string; text: string }[])[0]!;
    expect(text.type).toBe('text');
    expect(JSON.parse(text.text)).toMatchObject({ result: 42 });

    const sessionId = transport.sessionId!;
    expect(sessionId).toMatch(/^mcp-[0-9a-f-]{36}$/);
    const trace = onlyTrace(ts, sessionId);
    expect(trace).toMatchObject({
      tool: 'calculator',
      status: 'succeeded',
      actor: 'mcp',
      sessionId,
      metadata: { mcp_client: { name: 'vitest-agent', version: '1.2.3' } },
    });
    expect(result._meta).toEqual({ 'toolscope/trace_id': trace.id });
  });

  it('a failing call is a result with isError and the message the model gets, never a protocol error', async () => {
    const { ts, server } = await start();
    const { client, transport } = await server.connect();
    const missing = await client.callTool({ name: 'read_file', arguments: { path: 'nowhere.txt' } });
    expect(missing.isError).toBe(true);
    expect(missing.structuredContent).toBeUndefined();
    const message = (missing.content as { text: string }[])[0]!.text;
    expect(message).toMatch(/^Error FILE_NOT_FOUND: /);
    expect(message).toContain('nowhere.txt');
    expect(onlyTrace(ts, transport.sessionId!)).toMatchObject({ status: 'failed', error: { code: 'FILE_NOT_FOUND' } });

    const unknown = await client.callTool({ name: 'no_such_tool', arguments: {} });
    expect(unknown.isError).toBe(true);
    expect((unknown.content as { text: string }[])[0]!.text).toMatch(/^Error UNKNOWN_TOOL: /);

    const invalid = await client.callTool({ name: 'calculator', arguments: { expression: 42 } });
    expect(invalid.isError).toBe(true);
    expect((invalid.content as { text: string }[])[0]!.text).toMatch(/^Error INVALID_ARGUMENTS: .*expression/s);
  });

  it('a call waiting for approval keeps the request alive with progress, and runs once approved from the API', async () => {
    const { ts, server } = await start({ keepAliveMs: 100 });
    const { client, transport } = await server.connect();
    const progress: Progress[] = [];
    const pending = client.callTool(
      { name: 'write_file', arguments: { path: 'notes/mcp.md', content: 'from MCP' } },
      CallToolResultSchema,
      // Shorter than the wait: only the progress notifications keep the request alive.
      { onprogress: (p) => progress.push(p), timeout: 1_500, resetTimeoutOnProgress: true },
    );
    const sessionId = transport.sessionId!;
    const waiting = await until(async () => {
      const answer = (await (await fetch(`${server.base}/api/v1/approvals`)).json()) as {
        approvals: { trace_id: string; session_id: string; actor: string; tool: string }[];
      };
      return answer.approvals.find((a) => a.session_id === sessionId);
    });
    expect(waiting).toMatchObject({ tool: 'write_file', actor: 'mcp' });
    const { trace_id } = waiting;
    // Past the client's own timeout: the call still waits, kept alive by progress.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(progress.length).toBeGreaterThanOrEqual(5);
    expect(progress[0]!.message).toContain(`Waiting for approval of write_file (trace ${trace_id})`);
    expect(progress.map((p) => p.progress)).toEqual(progress.map((_, i) => i + 1));

    const decided = await fetch(`${server.base}/api/v1/approvals/${trace_id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'approve' }),
    });
    expect(decided.status).toBe(200);
    const result = await pending;
    expect(result.isError).toBeUndefined();
    expect(fs.readFileSync(path.join(ts.config.workspace, 'notes/mcp.md'), 'utf8')).toBe('from MCP');
    expect(ts.store.get(trace_id)).toMatchObject({
      status: 'succeeded',
      actor: 'mcp',
      approval: { decision: 'approved' },
    });
  });

  it('a denial comes back as an isError result with the reason', async () => {
    const { ts, server } = await start();
    const { client, transport } = await server.connect();
    const pending = client.callTool({ name: 'write_file', arguments: { path: 'no.md', content: 'x' } });
    const traceId = await until(() => ts.approvals.list().find((a) => a.sessionId === transport.sessionId)?.traceId);
    const decided = await fetch(`${server.base}/api/v1/approvals/${traceId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'deny', reason: 'not in this repo' }),
    });
    expect(decided.status).toBe(200);
    const result = await pending;
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0]!.text).toMatch(/^Error PERMISSION_DENIED: .*not in this repo/s);
  });

  it("a client's notifications/cancelled aborts the running call, traced CANCELLED by mcp", async () => {
    const { ts, server } = await start();
    const { client, transport } = await server.connect();
    const controller = new AbortController();
    const pending = client.callTool({ name: 'wait_for_cancel', arguments: {} }, CallToolResultSchema, {
      signal: controller.signal,
    });
    const sessionId = transport.sessionId!;
    const traceId = await until(() => ts.store.list({ sessionId }).items[0]?.id);
    await until(() => ts.executor.inFlight(traceId)?.stdout?.includes('waiting'));
    controller.abort('the user pressed Esc');
    await expect(pending).rejects.toThrow();
    const trace = await until(() => {
      const stored = ts.store.get(traceId);
      return stored?.status === 'cancelled' ? stored : null;
    });
    expect(trace.error).toMatchObject({
      code: 'CANCELLED',
      details: { cancelledBy: 'mcp', reason: 'the MCP client cancelled the request: the user pressed Esc' },
    });
    expect(trace.attempts.at(-1)?.outcome).toBe('cancelled');
  });

  it('a call cancelled while it waits for approval leaves the queue, traced CANCELLED', async () => {
    const { ts, server } = await start();
    const { client, transport } = await server.connect();
    const controller = new AbortController();
    const pending = client.callTool(
      { name: 'write_file', arguments: { path: 'never.md', content: 'x' } },
      CallToolResultSchema,
      { signal: controller.signal },
    );
    const traceId = await until(() => ts.approvals.list().find((a) => a.sessionId === transport.sessionId)?.traceId);
    controller.abort();
    await expect(pending).rejects.toThrow();
    const trace = await until(() => {
      const stored = ts.store.get(traceId);
      return stored?.status === 'cancelled' ? stored : null;
    });
    expect(trace.error).toMatchObject({ code: 'CANCELLED', details: { cancelledBy: 'mcp' } });
    expect(trace.approval?.decision).toBe('cancelled');
    expect(ts.approvals.list()).toEqual([]);
    expect(fs.existsSync(path.join(ts.config.workspace, 'never.md'))).toBe(false);
  });

  it('ending the session (DELETE) cancels its calls and forgets it', async () => {
    const { ts, server } = await start();
    const { client, transport } = await server.connect();
    const sessionId = transport.sessionId!;
    expect(server.endpoint.sessionIds()).toEqual([sessionId]);
    const pending = client.callTool({ name: 'wait_for_cancel', arguments: {} }).catch((error: unknown) => error);
    const traceId = await until(() => ts.store.list({ sessionId }).items[0]?.id);
    await transport.terminateSession();
    expect(server.endpoint.sessionIds()).toEqual([]);
    const trace = await until(() => {
      const stored = ts.store.get(traceId);
      return stored?.status === 'cancelled' ? stored : null;
    });
    expect(trace.error).toMatchObject({ details: { cancelledBy: 'mcp', reason: 'the MCP session ended' } });
    // The SDK's client keeps waiting for an answer the ended session will never send, until closed.
    await client.close();
    expect(await pending).toBeInstanceOf(Error);
    const gone = await fetch(`${server.base}/mcp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
    });
    expect(gone.status).toBe(404);
    expect(await gone.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32001 } });
  });

  it('a call in flight when Toolscope stops is answered CANCELLED by shutdown; later calls are refused as results', async () => {
    const { ts, server } = await start();
    const { client, transport } = await server.connect();
    const pending = client.callTool({ name: 'wait_for_cancel', arguments: {} });
    const sessionId = transport.sessionId!;
    const traceId = await until(() => ts.store.list({ sessionId }).items[0]?.id);
    await until(() => ts.executor.inFlight(traceId)?.stdout?.includes('waiting'));
    await ts.stop({ by: 'shutdown', reason: 'Toolscope is shutting down' });
    const result = await pending;
    expect(result.isError).toBe(true);
    expect((result.content as { text: string }[])[0]!.text).toMatch(/^Error CANCELLED: Cancelled by shutdown/);
    const late = await client.callTool({ name: 'calculator', arguments: { expression: '1+1' } });
    expect(late.isError).toBe(true);
    expect((late.content as { text: string }[])[0]!.text).toMatch(/^Error TRACE_UNAVAILABLE: .*not run/);
  });

  it('each client is its own session; its calls are in its own Toolscope session', async () => {
    const { ts, server } = await start();
    const a = await server.connect();
    const b = await server.connect();
    expect(a.transport.sessionId).not.toBe(b.transport.sessionId);
    await Promise.all([
      a.client.callTool({ name: 'calculator', arguments: { expression: '1+1' } }),
      b.client.callTool({ name: 'calculator', arguments: { expression: '2+2' } }),
    ]);
    expect(onlyTrace(ts, a.transport.sessionId!).arguments).toEqual({ expression: '1+1' });
    expect(onlyTrace(ts, b.transport.sessionId!).arguments).toEqual({ expression: '2+2' });
  });

  it('refuses messages without a session, bad JSON, and other methods, as JSON', async () => {
    const { server } = await start();
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const noSession = await fetch(`${server.base}/mcp`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(noSession.status).toBe(400);
    expect(await noSession.json()).toMatchObject({ error: { code: -32000 } });
    const bad = await fetch(`${server.base}/mcp`, { method: 'POST', headers, body: '{"jsonrpc":' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: { code: -32700 } });
    const form = await fetch(`${server.base}/mcp`, { method: 'POST', body: 'a=b' });
    expect(form.status).toBe(415);
    const put = await fetch(`${server.base}/mcp`, { method: 'PUT', headers, body: '{}' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, POST, DELETE, HEAD, OPTIONS');
    const stream = await fetch(`${server.base}/mcp`, { headers: { accept: 'text/event-stream' } });
    expect(stream.status).toBe(400);
  });

  it('ends sessions idle for idleSessionMs, and the longest idle one past maxSessions', async () => {
    // 300 ms on the reference machine at rest, stretched by the machine's crowding (3 s at most):
    // the three sessions below start well within it.
    const idleSessionMs = Math.min(300 * crowding(), 3_000);
    const { server } = await start({ idleSessionMs, maxSessions: 2 });
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const initialize = async () => {
      const answer = await fetch(`${server.base}/mcp`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 0,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
        }),
      });
      await answer.text();
      return answer.headers.get('mcp-session-id')!;
    };
    const first = await initialize();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = await initialize();
    const third = await initialize();
    expect(server.endpoint.sessionIds()).toEqual([second, third]);
    expect(first).not.toBe(third);
    await until(() => server.endpoint.sessionIds().length === 0, 10 * idleSessionMs);
  });

  it('tells every session notifications/tools/list_changed when the registry changes', async () => {
    const { ts, server } = await start();
    const { client, streamOpen } = await server.connect();
    let changed = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++;
    });
    const before = (await client.listTools()).tools.length;
    // The client opens its GET stream (where the notification comes) after initializing.
    await streamOpen;
    ts.executor.registry.register(defineTool({ ...waitForCancel, name: 'added_later' }));
    await until(() => changed > 0);
    const { tools } = await client.listTools();
    expect(tools).toHaveLength(before + 1);
    expect(tools.find((tool) => tool.name === 'added_later')).toBeDefined();
    ts.executor.registry.unregister('added_later');
    await until(() => changed > 1);
    expect((await client.listTools()).tools).toHaveLength(before);
  });
});
