import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createAgentHandler, type RequestListener } from '../../../agent-path/agent-handler';
import { createAgentServer } from '../../../agent-path/create-agent-server';
import { decideApproval, getApprovals } from '../../../api/approvals';
import type { Toolscope } from '../../../server/create-toolscope';
import { createMcpEndpoint, type McpEndpoint, type McpEndpointOptions } from '../mcp-endpoint';

/**
 * The parts of the API the MCP tests use beside `/mcp`, served by the handlers Next's route
 * files call (`GET /api/v1/approvals`, `POST /api/v1/approvals/:id`), so that a test decides a
 * call "from the API" without a Next.js build; anything else is a 404.
 */
function approvalsApi(ts: Toolscope): RequestListener {
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    let answer: Response;
    const decide = url.pathname.match(/^\/api\/v1\/approvals\/([^/]+)$/);
    if (req.method === 'GET' && url.pathname === '/api/v1/approvals') answer = getApprovals(ts);
    else if (req.method === 'POST' && decide) {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const request = new Request(url, {
        method: 'POST',
        headers: { 'content-type': req.headers['content-type'] ?? '' },
        body: Buffer.concat(chunks),
      });
      answer = await decideApproval(request, decodeURIComponent(decide[1]!), ts);
    } else answer = Response.json({ error: { code: 'NOT_FOUND', message: 'not in this test' } }, { status: 404 });
    res.writeHead(answer.status, { 'content-type': 'application/json' });
    res.end(Buffer.from(await answer.arrayBuffer()));
  };
}

export interface McpTestServer {
  base: string;
  endpoint: McpEndpoint;
  /** An SDK client connected to `/mcp` (closed by `close`). */
  connect(headers?: Record<string, string>): Promise<{ client: Client; transport: StreamableHTTPClientTransport }>;
  close(): Promise<void>;
}

/** The agent path of `ts` on a loopback port, with its MCP endpoint made with `options`. */
export async function startMcpTestServer(ts: Toolscope, options: McpEndpointOptions = {}): Promise<McpTestServer> {
  const endpoint = createMcpEndpoint(ts, options);
  const server: http.Server = createAgentServer(
    createAgentHandler({ ts, next: approvalsApi(ts), mcp: endpoint, heartbeatMs: 60_000 }),
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
      const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers } });
      await client.connect(transport);
      clients.push(client);
      return { client, transport };
    },
    async close() {
      await Promise.all(clients.map((client) => client.close().catch(() => {})));
      await endpoint.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
