import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_PATHS as API_ROUTES } from '../http/routes';
import { type BuiltServer, hasCurrentBuild, startBuiltServer } from '../server/testing/built-server';
import { bodyOf, jsonAnswerProblem, rawRequest, socketExchange, statusOf } from './testing/raw-http';

/**
 * Every answer under `/api/` is JSON: unknown routes 404, wrong methods 405 with `Allow`, broken
 * percent-encoding 400, requests Node itself cannot parse — never Next's HTML, a text redirect or
 * an empty body. Against the built server (`node scripts/build.mjs`; skipped without a build).
 */
const built = await hasCurrentBuild('api-json.test');
const root = path.resolve(__dirname, '../..');

// Methods Node's parser knows; an unknown one (FOO) is refused by the parser itself (see below).
const ODD_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'PROPFIND', 'M-SEARCH', 'PURGE'];

/** A route's path with its parameters filled. */
const sample = (pattern: string, id = 'some-id') => pattern.replace(/:[a-zA-Z]+/g, id);

describe.skipIf(!built)('every /api/ answer is JSON (built server)', () => {
  let server: BuiltServer;

  beforeAll(async () => {
    server = await startBuiltServer('toolscope-api-json-');
  }, 90_000);

  afterAll(() => server?.stop());

  const expectEnvelope = async (method: string, url: string, status: number, code: string) => {
    const answer = await rawRequest(server.port, {
      method,
      path: url,
      headers: { 'content-type': 'application/json' },
    });
    expect(answer.status, `${method} ${url}`).toBe(status);
    expect(jsonAnswerProblem(answer), `${method} ${url}`).toBeNull();
    expect(JSON.parse(answer.text).error.code, `${method} ${url}`).toBe(code);
    return answer;
  };

  it('answers an unknown route under /api/ with a JSON 404 for every method', async () => {
    for (const url of [
      '/api',
      '/api/',
      '/api/v1',
      '/api/v2/traces',
      '/api/v1/nope',
      '/api/v1/traces/a/b/c/d',
      '/api/_next',
      `/api/${'x'.repeat(5_000)}`,
    ]) {
      for (const method of ODD_METHODS) await expectEnvelope(method, url, 404, 'NOT_FOUND');
    }
  });

  it('answers a method a route lacks with a JSON 405 naming the methods in Allow, for every route', async () => {
    for (const route of API_ROUTES) {
      const url = sample(route.pattern);
      const allowed: readonly string[] = route.methods;
      for (const method of ODD_METHODS.filter(
        (m) => !allowed.includes(m) && !(m === 'HEAD' && allowed.includes('GET')),
      )) {
        const answer = await expectEnvelope(method, url, 405, 'METHOD_NOT_ALLOWED');
        const allow = String(answer.headers.allow).split(', ');
        expect(allow, url).toEqual(expect.arrayContaining([...route.methods, 'OPTIONS']));
      }
      const options = await rawRequest(server.port, { method: 'OPTIONS', path: url });
      expect(options.status, url).toBe(204);
      expect(String(options.headers.allow).split(', ')).toEqual(expect.arrayContaining([...route.methods]));
    }
  });

  it('answers malformed percent-encoding in any id with a JSON 400 BAD_PATH', async () => {
    for (const route of API_ROUTES.filter((r) => r.pattern.includes(':'))) {
      for (const id of ['%', '%zz', '%E0%A4%A', '%C0%AF', '%ED%A0%80', 'a%', '%%41']) {
        await expectEnvelope(route.methods[0] as string, sample(route.pattern, id), 400, 'BAD_PATH');
      }
    }
  });

  it('answers odd but well-formed ids (dots, encoded slashes, very long, NUL) with JSON, never a 5xx', async () => {
    const ids = [
      '.',
      '..',
      '...',
      '%2e%2e',
      '%2F',
      'a%2Fb',
      '%00',
      '%F0%9F%99%82',
      'a'.repeat(8_000),
      '__proto__',
      'constructor',
    ];
    for (const route of API_ROUTES.filter((r) => r.pattern.includes(':'))) {
      for (const id of ids) {
        const url = sample(route.pattern, id);
        const answer = await rawRequest(server.port, {
          method: route.methods[0] as string,
          path: url,
          headers: { 'content-type': 'application/json' },
          // Node's client sends a GET's or DELETE's body without declaring it: none for those.
          body: route.methods[0] === 'GET' || route.methods[0] === 'DELETE' ? undefined : '{}',
        });
        expect(answer.status, url).toBeLessThan(500);
        if (answer.status >= 400)
          expect(jsonAnswerProblem(answer), `${route.methods[0]} ${url.slice(0, 80)}`).toBeNull();
      }
    }
  });

  it('serves an API path with a trailing slash as without it, not with a text redirect', async () => {
    for (const url of ['/api/v1/traces/', '/api/v1/tools/?format=openai', '/api/v1/stats/', '/api/v1/tool-calls/']) {
      const method = url.startsWith('/api/v1/tool-calls') ? 'POST' : 'GET';
      const answer = await rawRequest(server.port, {
        method,
        path: url,
        headers: { 'content-type': 'application/json' },
        body:
          method === 'POST'
            ? '{"tool_calls":[{"id":"c1","function":{"name":"calculator","arguments":"{\\"expression\\":\\"1+1\\"}"}}]}'
            : undefined,
      });
      expect(answer.status, url).toBe(200);
      expect(jsonAnswerProblem(answer), url).toBeNull();
    }
  });

  it("answers an API request with Next's React Server Components headers as without them, not with an empty redirect", async () => {
    // Found by the fuzzer (seed 293824928): `rsc: 1` without `_rsc` in the query made Next answer 307.
    for (const url of ['/api/v1/faults', '/api/v1/faults/?cursor=15', '/api/v1/traces?limit=1', '/api/v1/stats']) {
      const answer = await rawRequest(server.port, {
        method: 'GET',
        path: url,
        headers: { rsc: '1', 'next-router-prefetch': '1', 'next-router-state-tree': '%5B%22%22%5D', 'next-url': '/' },
      });
      expect(answer.status, url).toBe(200);
      expect(jsonAnswerProblem(answer), url).toBeNull();
    }
  });

  it('answers a GET with a body with a JSON 400, not an empty one', async () => {
    // Node's client sends a GET's body without declaring it: declared here, on a connection of its own.
    const agent = new http.Agent({ keepAlive: false });
    for (const url of ['/api/v1/traces', '/api/v1/sessions', '/api/v1/tools', '/api/v1/stats']) {
      const answer = await rawRequest(
        server.port,
        {
          method: 'GET',
          path: url,
          headers: { 'content-type': 'application/json', 'content-length': '7' },
          body: '{"a":1}',
        },
        agent,
      );
      expect(answer.status, url).toBe(400);
      expect(jsonAnswerProblem(answer), url).toBeNull();
    }
  });

  it('answers bad query values (cursors, limits, dates, statuses) with a JSON 400, repeated keys included', async () => {
    for (const url of [
      '/api/v1/traces?cursor=abc',
      '/api/v1/traces?cursor=czEuLTE',
      '/api/v1/traces?limit=-1',
      '/api/v1/traces?limit=abc',
      '/api/v1/traces?status=nope',
      '/api/v1/traces?from=yesterday',
      '/api/v1/traces?limit=1&limit=x',
      '/api/v1/sessions?cursor=%',
      '/api/v1/sessions?cursor=eDEuMS4',
      '/api/v1/tools?format=xml',
      '/api/v1/stats?range=forever',
    ]) {
      const answer = await rawRequest(server.port, { method: 'GET', path: url });
      expect(answer.status, url).toBe(400);
      expect(jsonAnswerProblem(answer), url).toBeNull();
    }
  });

  it('answers what Node cannot parse (huge headers, a broken request line, a bad header) with JSON', async () => {
    const huge = await rawRequest(server.port, { method: 'GET', path: `/api/v1/traces?q=${'x'.repeat(40_000)}` });
    expect(huge.status).toBe(431);
    expect(jsonAnswerProblem(huge)).toBeNull();
    for (const head of [
      'GARBAGE',
      'FOO /api/v1/traces HTTP/1.1\r\nHost: 127.0.0.1',
      'GET /api/v1/traces HTTP/9.9\r\nHost: 127.0.0.1',
      'GET /api/v1/traces HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header: x',
      'POST /api/v1/tool-calls HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nContent-Length: 6',
      'POST /api/v1/tool-calls HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 6',
    ]) {
      const raw = await socketExchange(server.port, head, { body: 'hello!' });
      expect(statusOf(raw), head).toBe(400);
      expect(raw.toLowerCase(), head).toContain('content-type: application/json');
      expect(JSON.parse(bodyOf(raw)).error.code, head).toBe('BAD_REQUEST');
    }
    expect((await server.send('GET', '/api/v1/tools')).status).toBe(200);
  });
});

describe('error classes are matched by code, not instanceof', () => {
  // The production build holds copies of a class per chunk (and the agent path's bundle one more):
  // `instanceof` one of our error classes fails across them. Builtins (Error, Response...) are fine.
  const BUILTIN =
    /^(Error|TypeError|RangeError|SyntaxError|URIError|AggregateError|DOMException|Response|Request|Promise)$/;

  function sources(dir: string, out: string[] = []): string[] {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) sources(full, out);
      else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name)) out.push(full);
    }
    return out;
  }

  it('in lib/api, lib/http, lib/calls, lib/access, lib/mcp/server, lib/executor and app/', () => {
    const found: string[] = [];
    for (const dir of ['lib/api', 'lib/http', 'lib/calls', 'lib/access', 'lib/mcp/server', 'lib/executor', 'app']) {
      for (const file of sources(path.join(root, dir))) {
        for (const match of fs.readFileSync(file, 'utf8').matchAll(/instanceof\s+([A-Za-z_$][\w$]*)/g)) {
          if (!BUILTIN.test(match[1] as string)) found.push(`${path.relative(root, file)}: instanceof ${match[1]}`);
        }
      }
    }
    expect(found).toEqual([]);
  });
});
