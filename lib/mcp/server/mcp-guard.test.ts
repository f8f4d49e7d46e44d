import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config';
import { createToolscope, type Toolscope } from '../../server/create-toolscope';
import { type McpTestServer, startMcpTestServer } from './testing/mcp-test-server';

/**
 * `/mcp` behind the agent path's guard: the token when TOOLSCOPE_TOKEN is set (on every request
 * of a session, not only its first), Host and Origin against DNS rebinding and cross-site pages —
 * Origin on every method, the server's GET stream included, as MCP's transport asks.
 */
const TOKEN = 'mcp-token-0123456789abcdef';
let dir: string | undefined;
let ts: Toolscope | undefined;
let server: McpTestServer | undefined;

afterEach(async () => {
  await server?.close();
  await ts?.stop({ by: 'test' });
  ts?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  server = ts = dir = undefined;
});

async function start(env: Record<string, string> = {}) {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-mcp-guard-'));
  ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: dir, ...env }, dir));
  server = await startMcpTestServer(ts);
  return server;
}

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
});
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe('/mcp behind the guard', () => {
  it('with TOOLSCOPE_TOKEN: 401 without it (never the login page), a working session with it', async () => {
    const server = await start({ TOOLSCOPE_TOKEN: TOKEN });
    await expect(server.connect()).rejects.toMatchObject({
      code: 401,
      message: expect.stringContaining('requires a key'),
    });
    await expect(server.connect({ authorization: 'Bearer not-the-token-at-all' })).rejects.toMatchObject({
      code: 401,
      message: expect.stringContaining('not valid here'),
    });
    const refused = await fetch(`${server.base}/mcp`, { method: 'POST', headers: MCP_HEADERS, body: initialize });
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: { code: 'UNAUTHENTICATED' } });
    const stream = await fetch(`${server.base}/mcp`, { headers: { accept: 'text/event-stream' }, redirect: 'manual' });
    expect(stream.status).toBe(401);

    const { client, transport } = await server.connect({ authorization: `Bearer ${TOKEN}` });
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    const result = await client.callTool({ name: 'calculator', arguments: { expression: '2*21' } });
    expect(result.structuredContent).toMatchObject({ result: 42 });
    // A session id is no token: every request of the session carries it.
    const stolen = await fetch(`${server.base}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-session-id': transport.sessionId! },
      body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'tools/list' }),
    });
    expect(stolen.status).toBe(401);
  });

  it('refuses another site: Origin on POST (initialize) and on the GET stream, with 403 CROSS_ORIGIN', async () => {
    const server = await start();
    const foreign = await fetch(`${server.base}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, origin: 'http://evil.example' },
      body: initialize,
    });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ error: { code: 'CROSS_ORIGIN' } });

    const { transport } = await server.connect();
    const stream = await fetch(`${server.base}/mcp`, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': transport.sessionId!, origin: 'http://evil.example' },
    });
    expect(stream.status).toBe(403);
    const own = await fetch(`${server.base}/mcp`, {
      method: 'POST',
      headers: { ...MCP_HEADERS, origin: server.base },
      body: initialize,
    });
    expect(own.status).toBe(200);
    expect(own.headers.get('mcp-session-id')).toMatch(/^mcp-/);
    await own.body?.cancel();
  });

  it('refuses a Host that is not loopback (DNS rebinding) with 421', async () => {
    const server = await start();
    const { port } = new URL(server.base);
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port,
          path: '/mcp',
          method: 'POST',
          headers: { ...MCP_HEADERS, host: `evil.example:${port}` },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(initialize);
    });
    expect(status).toBe(421);
  });
});
