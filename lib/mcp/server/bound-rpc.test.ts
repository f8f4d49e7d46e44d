import { afterEach, describe, expect, it } from 'vitest';
import { MAX_ERROR_MESSAGE_CHARS } from '../../executor/bound-error';
import { testToolscopes } from '../../server/testing/test-toolscopes';
import { MAX_INITIALIZE_VALUES } from './bound-rpc';
import { type McpTestServer, startMcpTestServer } from './testing/mcp-test-server';

/**
 * `/mcp`'s JSON-RPC errors within an error's bounds, on the agent path of a real Toolscope on a
 * loopback port: an `initialize` too big to check in bounded time is refused before the SDK's zod
 * sees it, and the errors the SDK words from zod issues are cut.
 */
const toolscopes = testToolscopes('toolscope-mcp-bounds-');
let server: McpTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const initialize = (icons: number) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'x', version: '1', icons: Array.from({ length: icons }, () => 1) },
  },
});

async function post(body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${server?.base}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  // An answer in a session comes as one SSE event.
  const data = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? 'null');
  return { status: response.status, length: text.length, json: JSON.parse(data) };
}

describe('/mcp: JSON-RPC errors within bounds', () => {
  it(`refuses an initialize of more than ${MAX_INITIALIZE_VALUES} values (100,000 icons) at once, outside and inside a session`, async () => {
    server = await startMcpTestServer(toolscopes.start(toolscopes.dataDir()));
    const outside = await post(initialize(100_000));
    expect(outside.status).toBe(400);
    expect(outside.json.error).toEqual({
      code: -32602,
      message: `Invalid params: an initialize request holds more than ${MAX_INITIALIZE_VALUES} values.`,
    });
    const { transport } = await server.connect();
    const inside = await post(initialize(100_000), { 'mcp-session-id': transport.sessionId ?? '' });
    expect(inside.status).toBe(400);
    expect(inside.json.error.code).toBe(-32602);
  });

  it('cuts the error the SDK words from 9,000 zod issues of an initialize in a session', async () => {
    server = await startMcpTestServer(toolscopes.start(toolscopes.dataDir()));
    const { transport } = await server.connect();
    const answer = await post(initialize(9_000), {
      'mcp-session-id': transport.sessionId ?? '',
      'mcp-protocol-version': transport.protocolVersion ?? '2025-06-18',
    });
    expect(answer.json.error.message.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_CHARS);
    expect(answer.json.error.message).toContain('[truncated ');
    expect(answer.length).toBeLessThan(2 * MAX_ERROR_MESSAGE_CHARS);
  });
});
