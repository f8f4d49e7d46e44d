import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltServer, hasCurrentBuild, startBuiltServer } from '../server/testing/built-server';
import { bodyOf, jsonAnswerProblem, rawRequest, socketExchange, statusOf } from './testing/raw-http';

/**
 * The request guard on both paths of the built server — the agent path (tool calls, events,
 * /mcp) and Next's (API routes, pages, server actions): Host (DNS rebinding), Origin (cross-site
 * writes), content type (no "simple" cross-site bodies) and size. Every refusal is JSON.
 */
const built = await hasCurrentBuild('attacks-guard.test');

const TOOL_CALL =
  '{"tool_calls":[{"id":"g","type":"function","function":{"name":"calculator","arguments":"{\\"expression\\":\\"1+1\\"}"}}]}';
const MCP_INIT =
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"g","version":"1"}}}';

/** Requests on both paths: [name, method, path, body]. */
const TARGETS: [string, string, string, string | undefined][] = [
  ['agent path: tool calls', 'POST', '/api/v1/tool-calls', TOOL_CALL],
  ['agent path: events', 'GET', '/api/v1/events', undefined],
  ['agent path: /mcp', 'POST', '/mcp', MCP_INIT],
  ['Next: traces list', 'GET', '/api/v1/traces', undefined],
  ['Next: policy', 'PUT', '/api/v1/policy', '{"rules":[]}'],
  ['Next: faults', 'POST', '/api/v1/faults', '{"name":"g","tool":"calculator","kind":"timeout","enabled":false}'],
  ['Next: a page', 'GET', '/traces', undefined],
  ['Next: a server action', 'POST', '/policy', '[]'],
];

/** Routes that read a body, with one that would be accepted as JSON. */
const BODY_ROUTES: [string, string, string][] = [
  ['POST', '/api/v1/tool-calls', TOOL_CALL],
  ['POST', '/mcp', MCP_INIT],
  ['PUT', '/api/v1/policy', '{"rules":[]}'],
  ['POST', '/api/v1/policy/preview', '{"rules":[]}'],
  ['POST', '/api/v1/faults', '{"name":"g","tool":"calculator","kind":"timeout","enabled":false}'],
  ['PATCH', '/api/v1/faults/some-id', '{"enabled":false}'],
  ['POST', '/api/v1/approvals/some-id', '{"decision":"approve"}'],
  ['POST', '/api/v1/import', '{"format":"toolscope","traces":[]}'],
  ['POST', '/api/v1/traces/some-id/replay', '{}'],
  ['POST', '/api/v1/traces/some-id/cancel', '{"by":"x"}'],
  ['POST', '/api/v1/sessions/some-id/replay', '{}'],
];

describe.skipIf(!built)('request guard on the agent path and on Next (built server)', () => {
  let server: BuiltServer;
  let host: string;

  beforeAll(async () => {
    server = await startBuiltServer('toolscope-attack-guard-');
    host = `127.0.0.1:${server.port}`;
  }, 90_000);

  afterAll(() => server?.stop());

  const send = (method: string, path: string, headers: Record<string, string>, body?: string) =>
    rawRequest(server.port, {
      method,
      path,
      headers: { accept: 'application/json, text/event-stream', ...headers },
      body,
    });

  const expectRefused = async (
    answer: Awaited<ReturnType<typeof send>>,
    status: number,
    code: string,
    what: string,
  ) => {
    expect(answer.status, what).toBe(status);
    expect(jsonAnswerProblem(answer), what).toBeNull();
    expect(JSON.parse(answer.text).error.code, what).toBe(code);
  };

  it('refuses a foreign Host (DNS rebinding) with 421 on every path, in every spelling', async () => {
    const hosts = [
      'evil.com',
      'evil.com:80',
      '127.0.0.1.evil.com',
      'localhost.evil.com',
      'attacker.localhost',
      '127.0.0.2',
      '127.1',
      '2130706433',
      '0x7f000001',
      '[::ffff:127.0.0.1]',
      '[::2]',
      '0.0.0.0',
      'localhost@evil.com',
      'evil.com#@127.0.0.1',
    ];
    for (const [name, method, path, body] of TARGETS) {
      for (const foreign of hosts) {
        const answer = await send(method, path, { host: foreign, 'content-type': 'application/json' }, body);
        await expectRefused(answer, 421, 'HOST_NOT_ALLOWED', `${name} with Host "${foreign}"`);
      }
    }
    // No Host header at all (HTTP/1.0, or a hand-written request), or an empty one.
    for (const [, method, path] of TARGETS) {
      for (const head of [
        `${method} ${path} HTTP/1.0\r\nContent-Length: 0`,
        `${method} ${path} HTTP/1.1\r\nHost:\r\nContent-Length: 0\r\nConnection: close`,
      ]) {
        const raw = await socketExchange(server.port, head);
        expect(statusOf(raw), head).toBe(421);
        expect(JSON.parse(bodyOf(raw)).error.code).toBe('HOST_NOT_ALLOWED');
      }
    }
  });

  it('takes the loopback names in any case, with or without the port', async () => {
    for (const loopback of [
      host,
      `localhost:${server.port}`,
      `LOCALHOST:${server.port}`,
      `[::1]:${server.port}`,
      '127.0.0.1',
      'localhost',
    ]) {
      const answer = await send(
        'POST',
        '/api/v1/tool-calls',
        { host: loopback, 'content-type': 'application/json' },
        TOOL_CALL,
      );
      expect(answer.status, loopback).toBe(200);
      const page = await send('GET', '/api/v1/traces?limit=1', { host: loopback });
      expect(page.status, loopback).toBe(200);
    }
  });

  it('refuses writes from another Origin with 403 on every path (and /mcp on every method)', async () => {
    const origins = [
      'https://evil.com',
      'null',
      `http://127.0.0.1:${server.port}.evil.com`,
      `http://127.0.0.1:${server.port + 1}`,
      `http://localhost:${server.port}@evil.com`,
      'garbage',
      'file://',
    ];
    for (const [name, method, path, body] of TARGETS.filter(([, m, p]) => m !== 'GET' || p === '/mcp')) {
      for (const origin of origins) {
        const answer = await send(
          method,
          path,
          { host, origin, 'content-type': 'application/json', 'next-action': 'x' },
          body,
        );
        await expectRefused(answer, 403, 'CROSS_ORIGIN', `${name} from ${origin}`);
      }
    }
    const mcpGet = await send('GET', '/mcp', { host, origin: 'https://evil.com', 'mcp-session-id': 'x' });
    await expectRefused(mcpGet, 403, 'CROSS_ORIGIN', 'GET /mcp from evil.com');
    const same = await send(
      'POST',
      '/api/v1/tool-calls',
      { host, origin: `http://${host}`, 'content-type': 'application/json' },
      TOOL_CALL,
    );
    expect(same.status).toBe(200);
  });

  it('refuses a body that is not sent as JSON with 415 on every route that reads one', async () => {
    // A rule to PATCH: an unknown one is a 404 before its body is looked at.
    const rule = await server.send('POST', '/api/v1/faults', {
      name: 'g',
      tool: 'calculator',
      kind: 'timeout',
      enabled: false,
    });
    expect(rule.status).toBe(201);
    const types = [
      undefined,
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/jsonx',
      'text/json',
      'application/xml',
    ];
    for (const [method, route, body] of BODY_ROUTES) {
      const path = route.replace('/faults/some-id', `/faults/${rule.json.id}`);
      for (const type of types) {
        const headers: Record<string, string> = { host };
        if (type) headers['content-type'] = type;
        const answer = await send(method, path, headers, body);
        await expectRefused(answer, 415, 'UNSUPPORTED_MEDIA_TYPE', `${method} ${path} as ${type ?? '(no type)'}`);
      }
    }
  });

  it('refuses a body over the limit with 413 on both paths, declared or sent', async () => {
    const big = `{"pad":"${'x'.repeat(2 * 1024 * 1024)}"}`;
    for (const [method, path] of [
      ['POST', '/api/v1/tool-calls'],
      ['POST', '/mcp'],
      ['PUT', '/api/v1/policy'],
      ['POST', '/api/v1/faults'],
      ['POST', '/api/v1/traces/some-id/cancel'],
    ] as const) {
      try {
        const answer = await send(method, path, { host, 'content-type': 'application/json' }, big);
        await expectRefused(answer, 413, 'PAYLOAD_TOO_LARGE', `${method} ${path}`);
      } catch (error) {
        // The server may close the connection before the client finished sending; then the
        // declared-length check of limits.test.ts is what shows the answer.
        expect((error as NodeJS.ErrnoException).code, `${method} ${path}`).toMatch(/ECONNRESET|EPIPE/);
      }
    }
  });
});
