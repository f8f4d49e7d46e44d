import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config';
import { createToolscope } from '../../server/create-toolscope';
import { testToolscopes } from '../../server/testing/test-toolscopes';
import { type McpTestServer, startMcpTestServer } from './testing/mcp-test-server';

/**
 * `scripts/mcp-stdio-bridge.mjs`, as Claude Desktop starts it: a real child process speaking MCP
 * on stdio, driven by the SDK's stdio client, forwarding to `/mcp` of a real Toolscope.
 */
const BRIDGE = path.resolve(__dirname, '../../../scripts/mcp-stdio-bridge.mjs');
const toolscopes = testToolscopes('toolscope-mcp-bridge-');
let server: McpTestServer | undefined;
let client: Client | undefined;

afterEach(async () => {
  await client?.close();
  await server?.close();
  client = server = undefined;
});

async function bridge(url: string, env: Record<string, string> = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BRIDGE, url],
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => (stderr += chunk));
  client = new Client({ name: 'desktop-like', version: '2.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

describe('the stdio bridge', () => {
  it('lists and calls tools through Toolscope, failures as isError results, traced as the client', async () => {
    const ts = toolscopes.start(toolscopes.dataDir());
    server = await startMcpTestServer(ts);
    const { client } = await bridge(`${server.base}/mcp`);
    expect(client.getServerVersion()).toMatchObject({ name: 'toolscope' });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toContain('calculator');
    const result = await client.callTool({ name: 'calculator', arguments: { expression: '6*7' } });
    expect(result.structuredContent).toMatchObject({ result: 42 });
    const failed = await client.callTool({ name: 'read_file', arguments: { path: 'missing.txt' } });
    expect(failed.isError).toBe(true);
    const [sessionId] = server.endpoint.sessionIds();
    const traces = ts.store.list({ sessionId }).items;
    expect(traces).toHaveLength(2);
    expect(ts.store.get(traces[0]!.id)).toMatchObject({
      actor: 'mcp',
      metadata: { mcp_client: { name: 'desktop-like', version: '2.0.0' } },
    });
  });

  it('opens a new session when Toolscope forgot its own (a restart), and goes on', async () => {
    const ts = toolscopes.start(toolscopes.dataDir());
    server = await startMcpTestServer(ts);
    const { client, stderr } = await bridge(`${server.base}/mcp`);
    await client.listTools();
    const [first] = server.endpoint.sessionIds();
    const ended = await fetch(`${server.base}/mcp`, { method: 'DELETE', headers: { 'mcp-session-id': first! } });
    expect(ended.status).toBe(200);
    const result = await client.callTool({ name: 'calculator', arguments: { expression: '1+2' } });
    expect(result.structuredContent).toMatchObject({ result: 3 });
    const [second] = server.endpoint.sessionIds();
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    expect(stderr()).toContain('opening a new one');
  });

  it('needs the token when Toolscope has one: TOOLSCOPE_TOKEN is sent as a bearer token', async () => {
    const token = 'bridge-token-0123456789abcdef';
    const dir = toolscopes.dataDir();
    const ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: dir, TOOLSCOPE_TOKEN: token }, dir));
    try {
      server = await startMcpTestServer(ts);
      const refused = bridge(`${server.base}/mcp`);
      await expect(refused).rejects.toThrow(/requires a key/);
      await client?.close();
      const { client: allowed } = await bridge(`${server.base}/mcp`, { TOOLSCOPE_TOKEN: token });
      expect((await allowed.listTools()).tools.length).toBeGreaterThan(0);
    } finally {
      await client?.close();
      client = undefined;
      await server?.close();
      server = undefined;
      await ts.stop({ by: 'test' });
      ts.close();
    }
  });

  it('answers a request with a JSON-RPC error when Toolscope cannot be reached', async () => {
    await expect(bridge('http://127.0.0.1:9/mcp')).rejects.toThrow(/could not be reached/);
  });
});
