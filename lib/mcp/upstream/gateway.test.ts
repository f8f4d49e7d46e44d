import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { testToolscopes } from '../../server/testing/test-toolscopes';
import { startMcpTestServer } from '../server/testing/mcp-test-server';

/**
 * Toolscope as a gateway: an MCP client (the SDK's Client over Streamable HTTP) talks to
 * Toolscope's `/mcp`, which runs the tools of an upstream server (server-everything over stdio),
 * every call traced; the client hears when the upstream server's tools change.
 */
const toolscopes = testToolscopes('toolscope-gateway-');
const EVERYTHING = path.resolve('node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const FIXTURE = path.resolve('lib/mcp/upstream/testing/fixture-server.mjs');

async function until<T>(what: string, read: () => T | null | undefined | false, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('an MCP client through Toolscope to an upstream server', () => {
  it('lists and calls the upstream tools, traced with the client, and hears of their changes', async () => {
    const ts = toolscopes.start(
      toolscopes.dataDir({
        mcp: {
          servers: {
            everything: { command: 'node', args: [EVERYTHING], trustAnnotations: true },
            fixture: { command: 'node', args: [FIXTURE] },
          },
        },
        permissions: { allow: ['fixture__add_tool'] },
      }),
    );
    await until('both connected', () => ts.upstream.list().every((server) => server.state === 'connected'));
    const mcp = await startMcpTestServer(ts);
    try {
      const { client } = await mcp.connect();
      const listed = await client.listTools();
      const echo = listed.tools.find((tool) => tool.name === 'everything__echo');
      expect(echo).toMatchObject({
        description: 'Echoes back the input string',
        inputSchema: { type: 'object', properties: { message: { type: 'string' } } },
        annotations: { readOnlyHint: true },
      });

      const result = await client.callTool({ name: 'everything__echo', arguments: { message: 'via the gateway' } });
      expect(result.isError).toBeFalsy();
      expect(result.content).toEqual([{ type: 'text', text: 'Echo: via the gateway' }]);
      const trace = ts.store.list({ tool: 'everything__echo', limit: 1 }).items[0];
      expect(trace).toMatchObject({ actor: 'mcp', status: 'succeeded' });

      let changed = false;
      client.setNotificationHandler(
        (await import('@modelcontextprotocol/sdk/types.js')).ToolListChangedNotificationSchema,
        () => {
          changed = true;
        },
      );
      await client.callTool({ name: 'fixture__add_tool', arguments: {} });
      await until('list_changed from Toolscope', () => changed);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('fixture__extra');
    } finally {
      await mcp.close();
    }
  });
});
