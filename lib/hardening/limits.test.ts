import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../config';
import { type BuiltServer, hasCurrentBuild, startBuiltServer } from '../server/testing/built-server';
import { nestedJson } from './testing/fuzz-requests';
import { crowding } from './testing/machine-pace';
import { bodyOf, socketExchange, statusOf } from './testing/raw-http';
import { serverRssBytes, streamChunkedBody } from './testing/server-process';

/**
 * The README's limits hold on the built server: bodies (declared and streamed, on the agent path,
 * `/mcp`, Next's routes and pages), calls per request, output, nesting. The agent path's own unit
 * tests (lib/agent-path/*.test.ts) cover the readers; these drive `npm start`'s server as a client would.
 */
const built = await hasCurrentBuild('limits.test');
const root = path.resolve(__dirname, '../..');
const MIB = 1024 * 1024;

const call = (id: string, name: string, args: unknown) => ({
  id,
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
});

describe.skipIf(!built)('limits of the built server', () => {
  let server: BuiltServer;

  beforeAll(async () => {
    server = await startBuiltServer('toolscope-limits-', {
      policies: { write_file: 'allow' },
      limits: { maxModelOutputChars: 1_000, maxTraceBytes: 20_000 },
    });
  }, 90_000);

  afterAll(() => server?.stop());

  const head = (method: string, url: string, extra = '') =>
    `${method} ${url} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream${extra}`;

  it('refuses a body whose declared length is over the limit with 413 before any byte of it is sent', async () => {
    const cases: [string, string, number][] = [
      ['POST', '/api/v1/tool-calls', 2 * MIB],
      ['POST', '/mcp', 2 * MIB],
      ['PUT', '/api/v1/policy', 2 * MIB],
      ['POST', '/api/v1/faults', 2 * MIB],
      ['POST', '/api/v1/traces/some-id/replay', 2 * MIB],
      ['POST', '/api/v1/import', 40 * MIB],
      ['POST', '/', 2 * MIB],
    ];
    for (const [method, url, length] of cases) {
      const started = performance.now();
      // No body follows the headers: the answer must come without it.
      const raw = await socketExchange(server.port, head(method, url, `\r\nContent-Length: ${length}`), {
        timeoutMs: 5_000 * crowding(),
      });
      expect(statusOf(raw), `${method} ${url}`).toBe(413);
      expect(JSON.parse(bodyOf(raw)).error.code, url).toBe('PAYLOAD_TOO_LARGE');
      expect(performance.now() - started, url).toBeLessThan(4_000 * crowding());
    }
  });

  it('cuts a 200 MB chunked body at the limit, its memory bounded, on the agent path, /mcp and Next routes', async () => {
    // Warm each route once so that what the first request loads is not counted as the stream's.
    for (const url of ['/api/v1/tool-calls', '/api/v1/policy', '/mcp']) {
      await streamChunkedBody(server.port, head(url === '/api/v1/policy' ? 'PUT' : 'POST', url), 2 * MIB);
    }
    const before = serverRssBytes(server);
    for (const [method, url] of [
      ['POST', '/api/v1/tool-calls'],
      ['POST', '/mcp'],
      ['PUT', '/api/v1/policy'],
      ['POST', '/api/v1/approvals/some-id'],
    ] as const) {
      const streamed = await streamChunkedBody(server.port, head(method, url), 200 * MIB);
      expect(streamed.status, `${method} ${url}: ${streamed.received.slice(0, 200)}`).toBe(413);
      expect(streamed.received, url).toContain('"PAYLOAD_TOO_LARGE"');
      // The server closed the connection soon after the limit instead of reading on.
      expect(streamed.sentBytes, url).toBeLessThan(64 * MIB);
      const grown = serverRssBytes(server) - before;
      expect(grown, `${url}: RSS grew by ${Math.round(grown / MIB)} MiB`).toBeLessThan(64 * MIB);
    }
    // The import route's own, larger limit (32 MiB) cuts it too.
    const imported = await streamChunkedBody(server.port, head('POST', '/api/v1/import'), 200 * MIB);
    expect(imported.status).toBe(413);
    expect(imported.sentBytes).toBeLessThan(120 * MIB);
    expect((await server.send('GET', '/api/v1/tools')).status).toBe(200);
  }, 120_000);

  it('takes a chunked body under the limit on a route Next serves', async () => {
    const body = JSON.stringify({ rules: [{ list: 'deny', rule: 'http_request(https://example.com/*)' }] });
    const raw = await socketExchange(
      server.port,
      `${head('PUT', '/api/v1/policy')}\r\nTransfer-Encoding: chunked\r\nConnection: close`,
      { body: `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n` },
    );
    expect(statusOf(raw), raw.slice(0, 300)).toBe(200);
    expect(raw).toContain('http_request(https://example.com/*)');
    await server.send('PUT', '/api/v1/policy', { rules: [] });
  });

  it('answers too many calls in one request with a 400 naming the limit', async () => {
    for (const count of [DEFAULT_LIMITS.maxBatchSize + 1, 5_000]) {
      const calls = Array.from({ length: count }, (_, i) => call(`call_${i}`, 'calculator', { expression: '1+1' }));
      const answer = await server.send('POST', '/api/v1/tool-calls', { tool_calls: calls });
      expect(answer.status).toBe(400);
      expect(answer.json.error.code).toBe('TOO_MANY_CALLS');
      expect(answer.json.error.message).toContain(`at most ${DEFAULT_LIMITS.maxBatchSize} (limits.maxBatchSize)`);
      const blocks = calls.map((c) => ({ type: 'tool_use', id: c.id, name: 'calculator', input: { expression: '1' } }));
      const anthropic = await server.send('POST', '/api/v1/tool-calls', { tool_use: blocks });
      expect(anthropic.json.error.code).toBe('TOO_MANY_CALLS');
    }
    const exactly = Array.from({ length: DEFAULT_LIMITS.maxBatchSize }, (_, i) =>
      call(`ok_${i}`, 'calculator', { expression: `${i}+1` }),
    );
    const ok = await server.send('POST', '/api/v1/tool-calls', { tool_calls: exactly });
    expect(ok.status).toBe(200);
    expect(ok.json.results).toHaveLength(DEFAULT_LIMITS.maxBatchSize);
  });

  it('marks and bounds output over the caps: the model sees maxModelOutputChars, the trace keeps maxTraceBytes', async () => {
    const content = `${'a'.repeat(50_000)}MIDDLE${'z'.repeat(50_000)}`;
    const wrote = await server.send('POST', '/api/v1/tool-calls', {
      tool_calls: [call('write_big', 'write_file', { path: 'big.txt', content })],
    });
    expect(wrote.json.results[0].success, JSON.stringify(wrote.json.results[0].error)).toBe(true);
    const read = await server.send('POST', '/api/v1/tool-calls', {
      tool_calls: [call('read_big', 'read_file', { path: 'big.txt' })],
    });
    const result = read.json.results[0];
    expect(result.success, JSON.stringify(result.error)).toBe(true);
    expect(result.metadata.truncated).toBe(true);
    const message = read.json.messages[0].content as string;
    expect(message.length).toBeLessThan(1_000 + 200);
    expect(message).toMatch(/truncated \d+ of \d+ characters/);
    expect(message).not.toContain('MIDDLE');
    const trace = await server.send('GET', `/api/v1/traces/${result.trace_id}`);
    const stored = JSON.stringify(trace.json.result.output);
    expect(stored.length).toBeLessThan(20_000 + 200);
    expect(stored).toMatch(/truncated \d+ of \d+ characters/);
  });

  it('leaves a trace for arguments nested past any depth (100,000 levels), as an object and as JSON text', async () => {
    const nested = nestedJson(100_000, 'object');
    const asObject = `{"tool_calls":[{"id":"deep_object","type":"function","function":{"name":"calculator","arguments":${nested}}}]}`;
    const asText = JSON.stringify({
      tool_calls: [{ id: 'deep_text', type: 'function', function: { name: 'calculator', arguments: nested } }],
    });
    for (const body of [asObject, asText]) {
      const response = await fetch(`${server.base}/api/v1/tool-calls`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(response.status).toBe(200);
      const { results } = (await response.json()) as {
        results: { trace_id: string; success: boolean; error: { code: string } }[];
      };
      expect(results[0]?.success).toBe(false);
      expect(results[0]?.error.code).toBe('INVALID_ARGUMENTS');
      const trace = await server.send('GET', `/api/v1/traces/${results[0]?.trace_id}`);
      expect(trace.status).toBe(200);
      expect(trace.json.status).toBe('failed');
    }
  });
});

describe('every limit is named in the README', () => {
  it('names each configurable limit as limits.<name>, and the fixed ones', () => {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const missing = Object.keys(DEFAULT_LIMITS).filter((key) => !readme.includes(`limits.${key}`));
    expect(missing).toEqual([]);
    // The fixed limits: expression length, ranges, import size, rules, fault and policy bodies.
    for (const text of ['1000 characters', '10,000 elements', '32 MiB', 'TOO_MANY_CALLS', '431']) {
      expect(readme, text).toContain(text);
    }
  });
});
