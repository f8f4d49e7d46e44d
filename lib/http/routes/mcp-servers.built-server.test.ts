import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltServer, hasCurrentBuild, startBuiltServer } from '../../server/testing/built-server';

/**
 * Upstream MCP servers as `npm start` serves them: the config's servers connect in the
 * background, `/api/v1/mcp/servers` lists them, their tools run through `POST /api/v1/tool-calls`
 * with the server's stderr in the trace, and a reconnect answers with the new connection.
 * Needs a current build (`node scripts/build.mjs`; `npm test` builds first); skipped without one.
 */
const built = await hasCurrentBuild('mcp-servers.built-server.test');
const FIXTURE = path.resolve('lib/mcp/upstream/testing/fixture-server.mjs');

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON answers whose shape they assert on
type Json = any;

describe.skipIf(!built)('the built server: upstream MCP servers', () => {
  let server: BuiltServer;

  beforeAll(async () => {
    server = await startBuiltServer('toolscope-mcp-servers-built-', {
      mcp: {
        servers: {
          fixture: { command: 'node', args: [FIXTURE], trustAnnotations: true },
          broken: { command: 'no-such-program-here' },
        },
      },
    });
  }, 90_000);

  afterAll(() => server?.stop());

  async function serverNamed(name: string, state: string): Promise<Json> {
    for (let i = 0; i < 200; i++) {
      const { json } = await server.send('GET', '/api/v1/mcp/servers');
      const found = json.servers.find((s: Json) => s.name === name);
      if (found?.state === state) return found;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`${name} never reached ${state}`);
  }

  it('lists the servers, runs a tool with its stderr in the trace, reconnects on request, 404 for an unknown one', async () => {
    const fixture = await serverNamed('fixture', 'connected');
    expect(fixture).toMatchObject({
      transport: 'stdio',
      server_info: { name: 'fixture', version: '1.2.3' },
      tools: ['fixture__whisper', 'fixture__crash', 'fixture__wait', 'fixture__add_tool'],
      error: null,
      next_retry_at: null,
    });
    const broken = await serverNamed('broken', 'failed');
    expect(broken.error).toMatch(/^it could not be started/);
    expect(broken.next_retry_at).toMatch(/Z$/);

    const tools = await server.send('GET', '/api/v1/tools?format=openai');
    expect(tools.json.tools.map((t: Json) => t.function.name)).toContain('fixture__whisper');

    const call = await server.send('POST', '/api/v1/tool-calls', {
      tool_calls: [
        { id: 'call_w', type: 'function', function: { name: 'fixture__whisper', arguments: '{"text":"hi"}' } },
      ],
    });
    expect(call.json.results[0]).toMatchObject({ status: 'succeeded', output: 'heard hi' });
    const trace = await server.send('GET', `/api/v1/traces/${call.json.results[0].trace_id}`);
    expect(trace.json.stderr).toBe('whisper: hi\nwhisper again: hi\n');

    const reconnected = await server.send('POST', '/api/v1/mcp/servers/fixture/reconnect');
    expect(reconnected.status).toBe(200);
    expect(reconnected.json).toMatchObject({ name: 'fixture', state: 'connected' });
    expect(reconnected.json.connected_at >= fixture.connected_at).toBe(true);

    const unknown = await server.send('POST', '/api/v1/mcp/servers/nope/reconnect');
    expect(unknown).toMatchObject({ status: 404, json: { error: { code: 'NOT_FOUND' } } });
  });
});
