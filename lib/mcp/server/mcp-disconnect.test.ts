import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { testToolscopes } from '../../server/testing/test-toolscopes';
import { type McpTestServer, startMcpTestServer } from './testing/mcp-test-server';

/**
 * MCP `tools/call` waiting for a person, as `POST /api/v1/tool-calls` does: a client whose
 * connection drops (no `notifications/cancelled`) leaves the call pending, to run once approved;
 * an explicit cancel stays a cancel (see `mcp-endpoint.test.ts`).
 */
const toolscopes = testToolscopes('toolscope-mcp-gone-');
let server: McpTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function until<T>(read: () => T | null | undefined | false, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('an MCP client that goes away while its call waits for a person', () => {
  it('leaves the call pending: approved, it runs once and its result is stored', async () => {
    const ts = toolscopes.start(toolscopes.dataDir());
    server = await startMcpTestServer(ts);
    const { transport } = await server.connect();
    const sessionId = transport.sessionId as string;
    // A tools/call on a connection of its own, dropped without a word (as a client timing out).
    const request = http.request(`${server.base}/mcp`, {
      method: 'POST',
      agent: false,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
      },
    });
    request.on('error', () => {});
    request.end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'write_file', arguments: { path: 'mcp-gone.txt', content: 'once\n' } },
      }),
    );
    const traceId = await until(() => ts.approvals.list().find((a) => a.sessionId === sessionId)?.traceId);
    request.destroy();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(ts.store.get(traceId)?.status).toBe('awaiting_approval');
    expect(ts.approvals.get(traceId)).not.toBeNull();

    const decided = await fetch(`${server.base}/api/v1/approvals/${traceId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'approve' }),
    });
    expect(decided.status).toBe(200);
    await until(() => ts.store.get(traceId)?.status === 'succeeded');
    expect(fs.readFileSync(path.join(ts.config.workspace, 'mcp-gone.txt'), 'utf8')).toBe('once\n');
    expect(ts.executor.inFlightIds()).toEqual([]);
  });
});
