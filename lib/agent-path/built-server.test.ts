import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltServer, hasCurrentBuild, startBuiltServer } from '../server/testing/built-server';

/**
 * The built server (`npm start`'s script): a call made through the agent path is the same call
 * Next's API and pages show, and the /api/ errors Next used to answer are JSON. Needs a current
 * build (`node scripts/build.mjs`; `npm test` builds first); without one it is skipped.
 */
const built = await hasCurrentBuild('built-server.test');

describe.skipIf(!built)('the built server: agent path in front of Next.js', () => {
  let server: BuiltServer;
  let port: number;
  let base: string;

  beforeAll(async () => {
    server = await startBuiltServer('toolscope-built-');
    ({ port, base } = server);
  }, 90_000);

  afterAll(() => server?.stop());

  it("shows a call made through the agent path in Next's API and trace page", async () => {
    const answer = await fetch(`${base}/api/v1/tool-calls`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        session_id: 'built-lean',
        tool_calls: [
          { id: 'call_lean', type: 'function', function: { name: 'calculator', arguments: '{"expression":"6*7"}' } },
        ],
      }),
    });
    expect(answer.status).toBe(200);
    const { results } = (await answer.json()) as { results: { trace_id: string; output: { result: number } }[] };
    const id = results[0]!.trace_id;
    expect(results[0]!.output.result).toBe(42);

    const trace = await fetch(`${base}/api/v1/traces/${id}`);
    expect(trace.status).toBe(200);
    expect(await trace.json()).toMatchObject({ id, tool_call_id: 'call_lean', status: 'succeeded' });
    const list = (await (await fetch(`${base}/api/v1/traces?session=built-lean`)).json()) as {
      items: { id: string }[];
    };
    expect(list.items.map((item) => item.id)).toEqual([id]);
    const page = await fetch(`${base}/traces/${id}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('call_lean');
  });

  it('takes Anthropic tool_use blocks on the agent path and lists tools in both formats through Next', async () => {
    const answer = await fetch(`${base}/api/v1/tool-calls`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        tool_use: [{ type: 'tool_use', id: 'toolu_built', name: 'calculator', input: { expression: '6*7' } }],
      }),
    });
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as {
      results: { output: { result: number } }[];
      tool_results: { type: string; tool_use_id: string; content: string; is_error: boolean }[];
    };
    expect(body.results[0]?.output.result).toBe(42);
    expect(body.tool_results).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_built', content: expect.stringContaining('42'), is_error: false },
    ]);
    const openai = (await (await fetch(`${base}/api/v1/tools?format=openai`)).json()) as {
      tools: { type: string; function: { name: string } }[];
    };
    expect(openai.tools.find((tool) => tool.function.name === 'calculator')?.type).toBe('function');
    const anthropic = (await (await fetch(`${base}/api/v1/tools?format=anthropic`)).json()) as {
      tools: { name: string; input_schema: { type: string } }[];
    };
    expect(anthropic.tools.find((tool) => tool.name === 'calculator')?.input_schema.type).toBe('object');
    const bad = await fetch(`${base}/api/v1/tools?format=xml`);
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/^format: /);
  });

  it('refuses a declared oversized body at once, before any byte of it (the agent path, not Next)', async () => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk));
    socket.write(
      `POST /api/v1/tool-calls HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 2097152\r\n\r\n`,
    );
    await new Promise((resolve) => socket.on('close', resolve));
    expect(received.slice(9, 12)).toBe('413');
    expect(received).toContain('"PAYLOAD_TOO_LARGE"');
  });

  it("answers JSON, never Next's HTML, for unknown routes, wrong methods, bad paths and bad cursors", async () => {
    const cases: [string, RequestInit, number, string][] = [
      ['/api/v1/nope', {}, 404, 'NOT_FOUND'],
      ['/api/nothing-here', {}, 404, 'NOT_FOUND'],
      ['/api/v1/traces', { method: 'POST' }, 405, 'METHOD_NOT_ALLOWED'],
      ['/api/v1/traces/%E0%A4%A', {}, 400, 'BAD_PATH'],
      ['/api/v1/traces?cursor=abc', {}, 400, 'INVALID_CURSOR'],
      ['/api/v1/traces/unknown-id', {}, 404, 'NOT_FOUND'],
    ];
    for (const [url, init, status, code] of cases) {
      const response = await fetch(`${base}${url}`, init);
      expect(response.status, url).toBe(status);
      expect(response.headers.get('content-type'), url).toMatch(/application\/json/);
      expect(((await response.json()) as { error: { code: string } }).error.code, url).toBe(code);
    }
    const wrong = await fetch(`${base}/api/v1/traces`, { method: 'POST' });
    expect(wrong.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });

  const callBody = (expression: string, id = 'call_calc') =>
    JSON.stringify({
      tool_calls: [
        { id, type: 'function', function: { name: 'calculator', arguments: JSON.stringify({ expression }) } },
      ],
    });

  it('answers an expression that would run for minutes within 1 s, serving other requests meanwhile', async () => {
    const post = (body: string) =>
      fetch(`${base}/api/v1/tool-calls`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    await post(callBody('1 + 1')); // a warm worker, as in steady use
    const started = performance.now();
    // Each part is allowed; together they run far past the calculator's deadline.
    const slowExpression = `${'gcd(1:10000)+'.repeat(76)}0`;
    const slow = post(callBody(slowExpression, 'call_slow')).then(async (r) => ({
      ms: performance.now() - started,
      body: (await r.json()) as { results: { status: string; error: { code: string; kind: string } | null }[] },
    }));
    // While it runs, the event loop answers other work: the tools list and another calculation.
    const others = await Promise.all([fetch(`${base}/api/v1/tools`), post(callBody('6 * 7', 'call_other'))]);
    const othersMs = performance.now() - started;
    expect(others.map((r) => r.status)).toEqual([200, 200]);
    const answer = await slow;
    expect(answer.ms).toBeLessThan(1_000);
    expect(answer.body.results[0]?.status).toBe('failed');
    expect(answer.body.results[0]?.error?.kind).toBe('limit');
    expect(othersMs).toBeLessThan(1_000);
  });

  it('guards the agent path as the rest: foreign Host 421, foreign Origin 403, non-JSON 415', async () => {
    const raw = (head: string, body = '{}') =>
      new Promise<string>((resolve) => {
        const socket = net.connect(port, '127.0.0.1');
        let received = '';
        socket.on('data', (chunk) => (received += chunk));
        socket.on('close', () => resolve(received));
        socket.write(`${head}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      });
    const host = `Host: 127.0.0.1:${port}`;
    const rebound = await raw(
      'POST /api/v1/tool-calls HTTP/1.1\r\nHost: evil.example\r\nContent-Type: application/json',
    );
    expect(rebound.slice(9, 12)).toBe('421');
    const crossSite = await raw(
      `POST /api/v1/tool-calls HTTP/1.1\r\n${host}\r\nOrigin: https://evil.example\r\nContent-Type: application/json`,
    );
    expect(crossSite.slice(9, 12)).toBe('403');
    const form = await raw(`POST /api/v1/tool-calls HTTP/1.1\r\n${host}\r\nContent-Type: text/plain`);
    expect(form.slice(9, 12)).toBe('415');
    for (const answer of [rebound, crossSite, form]) expect(answer).toMatch(/\{"error":\{"code":/);
  });
});
