import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createHttpApp } from '../../../http/app';
import { createHttpServer } from '../../../http/node-server';
import type { Toolscope } from '../../../server/create-toolscope';
import { createMcpEndpoint, type McpEndpoint, type McpEndpointOptions } from '../mcp-endpoint';

export interface McpTestServer {
  base: string;
  endpoint: McpEndpoint;
  /**
   * An SDK client connected to `/mcp` (closed by `close`); `streamOpen` resolves once its GET
   * stream (where the server's notifications come) is open.
   */
  connect(
    headers?: Record<string, string>,
  ): Promise<{ client: Client; transport: StreamableHTTPClientTransport; streamOpen: Promise<void> }>;
  close(): Promise<void>;
}

/** The HTTP layer of `ts` on a loopback port (the API and `/mcp`), its MCP endpoint made with `options`. */
export async function startMcpTestServer(ts: Toolscope, options: McpEndpointOptions = {}): Promise<McpTestServer> {
  const endpoint = createMcpEndpoint(ts, options);
  const server: http.Server = createHttpServer(
    createHttpApp(ts, { mcp: endpoint, heartbeatMs: 60_000 }),
    ts.config.limits,
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clients: Client[] = [];
  return {
    base,
    endpoint,
    async connect(headers = {}) {
      const client = new Client({ name: 'vitest-agent', version: '1.2.3' });
      let opened = () => {};
      const streamOpen = new Promise<void>((resolve) => {
        opened = resolve;
      });
      const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
        requestInit: { headers },
        // The SDK opens the GET stream after initializing, without telling: its answer is the sign.
        fetch: async (url, init) => {
          const response = await fetch(url, init);
          if ((init?.method ?? 'GET') === 'GET' && response.ok) opened();
          return response;
        },
      });
      await client.connect(transport);
      clients.push(client);
      return { client, transport, streamOpen };
    },
    async close() {
      await Promise.all(clients.map((client) => client.close().catch(() => {})));
      await endpoint.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
