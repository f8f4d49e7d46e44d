import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltServer, hasCurrentBuild, startBuiltServer } from '../../server/testing/built-server';

/**
 * `/mcp` on the built server (`npm start`), with TOOLSCOPE_TOKEN set: an MCP client's calls are
 * traced and decided through the same HTTP API and pages as any other. Needs a current build
 * (`node scripts/build.mjs`; `npm test` builds first); without one it is skipped.
 */
const built = await hasCurrentBuild('mcp-built-server.test');
const TOKEN = 'built-mcp-token-0123456789';

describe.skipIf(!built)('the built server as an MCP server', () => {
  let server: BuiltServer;
  const clients: Client[] = [];

  beforeAll(async () => {
    server = await startBuiltServer('toolscope-mcp-built-', undefined, { TOOLSCOPE_TOKEN: TOKEN });
  }, 90_000);

  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => {})));
    server?.stop();
  });

  async function connect(token: string | null = TOKEN) {
    const client = new Client({ name: 'built-agent', version: '0.9.0' });
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    const transport = new StreamableHTTPClientTransport(new URL(`${server.base}/mcp`), { requestInit: { headers } });
    await client.connect(transport);
    clients.push(client);
    return { client, transport };
  }

  it('refuses a client without the token', async () => {
    await expect(connect(null)).rejects.toMatchObject({ code: 401 });
  });

  it('lists the tools and runs a call that the API and the trace page then show', async () => {
    const { client, transport } = await connect();
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === 'write_file')?.annotations).toMatchObject({ destructiveHint: true });
    const result = await client.callTool({ name: 'calculator', arguments: { expression: '6*7' } });
    expect(result.structuredContent).toMatchObject({ result: 42 });
    const traceId = (result._meta as Record<string, string>)['toolscope/trace_id']!;
    const trace = await server.send('GET', `/api/v1/traces/${traceId}`);
    expect(trace.json).toMatchObject({
      status: 'succeeded',
      actor: 'mcp',
      session_id: transport.sessionId,
      metadata: { mcp_client: { name: 'built-agent', version: '0.9.0' } },
    });
    const page = await fetch(`${server.base}/traces/${traceId}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(page.status).toBe(200);

    const failed = await client.callTool({ name: 'read_file', arguments: { path: '../etc/passwd' } });
    expect(failed.isError).toBe(true);
    expect((failed.content as { text: string }[])[0]!.text).toMatch(/^Error [A-Z_]+: /);
  });

  it('a call waits for approval with progress, is approved through the HTTP API, and answers', async () => {
    const { client, transport } = await connect();
    const progress: Progress[] = [];
    const pending = client.callTool(
      { name: 'write_file', arguments: { path: 'built-mcp.md', content: 'approved' } },
      CallToolResultSchema,
      { onprogress: (p) => progress.push(p), resetTimeoutOnProgress: true },
    );
    let traceId: string | undefined;
    for (let i = 0; i < 100 && !traceId; i++) {
      const { json } = await server.send('GET', '/api/v1/approvals');
      traceId = (json.approvals as { trace_id: string; session_id: string }[]).find(
        (a) => a.session_id === transport.sessionId,
      )?.trace_id;
      if (!traceId) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(traceId).toBeDefined();
    for (let i = 0; i < 100 && progress.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(progress[0]?.message).toContain('Waiting for approval of write_file');
    // The token made the call: it may not decide it (no self-approval); a reviewer's key may.
    const self = await server.send('POST', `/api/v1/approvals/${traceId}`, { decision: 'approve' });
    expect(self).toMatchObject({ status: 403, json: { error: { code: 'SELF_APPROVAL' } } });
    const key = await server.send('POST', '/api/v1/keys', { name: 'mcp-reviewer', role: 'reviewer' });
    expect(key.status).toBe(201);
    const decided = await fetch(`${server.base}/api/v1/approvals/${traceId}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.json.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'approve' }),
    });
    expect(decided.status).toBe(200);
    const result = await pending;
    expect(result.isError).toBeUndefined();
    const trace = await server.send('GET', `/api/v1/traces/${traceId}`);
    expect(trace.json).toMatchObject({
      status: 'succeeded',
      actor: 'mcp',
      principal: { name: 'admin', role: 'admin' },
      approval: { decision: 'approved', by: 'mcp-reviewer', decided_by: { name: 'mcp-reviewer', role: 'reviewer' } },
    });
  });

  it('a cancelled call is traced CANCELLED', async () => {
    const { client, transport } = await connect();
    const controller = new AbortController();
    const pending = client.callTool(
      { name: 'write_file', arguments: { path: 'never.md', content: 'x' } },
      CallToolResultSchema,
      { signal: controller.signal },
    );
    let traceId: string | undefined;
    for (let i = 0; i < 100 && !traceId; i++) {
      const { json } = await server.send('GET', `/api/v1/traces?session=${transport.sessionId}`);
      traceId = (json.items as { id: string; status: string }[]).find((t) => t.status === 'awaiting_approval')?.id;
      if (!traceId) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    controller.abort('changed my mind');
    await expect(pending).rejects.toThrow();
    let status = '';
    let trace: { json: { status: string } } | undefined;
    for (let i = 0; i < 100 && status !== 'cancelled'; i++) {
      trace = await server.send('GET', `/api/v1/traces/${traceId}`);
      status = trace.json.status;
      if (status !== 'cancelled') await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(trace?.json).toMatchObject({
      status: 'cancelled',
      result: {
        error: {
          code: 'CANCELLED',
          message: 'Cancelled by mcp: the MCP client cancelled the request: changed my mind.',
        },
      },
    });
  });
});
