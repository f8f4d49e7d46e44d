import type http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { NextConfig } from 'next';
import { getPathMatch } from 'next/dist/shared/lib/router/utils/path-match';
import { NextRequest } from 'next/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { socketExchange, statusOf } from '../hardening/testing/raw-http';
import type { Toolscope } from '../server/create-toolscope';
import { testToolscopes } from '../server/testing/test-toolscopes';
import { createHttpApp, type HttpApp } from './app';
import { FRAME_HEADERS } from './frame-headers';
import { createHttpServer } from './node-server';
import { appOf, callApp } from './testing/call-app';
import { closeServer, listenOnLoopback } from './testing/listen';

/**
 * No framing: every answer of the HTTP layer (API, errors, the guard's refusals) and every page it
 * hands to Next carries `frame-ancestors 'none'` and `X-Frame-Options: DENY`; next.config.mjs sends
 * the same for what Next serves on its own (`npm run dev`). The built server's pages are checked
 * in frame-headers.built-server.test.ts.
 */
const toolscopes = testToolscopes('toolscope-frame-');
// proxy.ts reaches the process's Toolscope through a server-only module: a marker package that
// throws outside Next's server bundles.
vi.mock('server-only', () => ({}));
const servers: http.Server[] = [];
const apps: HttpApp[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await closeServer(server);
  for (const app of apps.splice(0)) await app.parts.mcp.close();
});

/** The app of a fresh Toolscope, its MCP endpoint closed after the test. */
function appFor(ts: ReturnType<typeof toolscopes.start>): HttpApp {
  const app = appOf(ts);
  apps.push(app);
  return app;
}

/** The lower-cased headers of a raw HTTP answer. */
function rawHeaders(raw: string): Record<string, string> {
  const head = raw.slice(0, raw.indexOf('\r\n\r\n')).split('\r\n').slice(1);
  return Object.fromEntries(
    head.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
  );
}

function expectNoFraming(response: Response, what: string) {
  expect(response.headers.get('content-security-policy'), what).toContain("frame-ancestors 'none'");
  expect(response.headers.get('x-frame-options'), what).toBe('DENY');
}

describe('frame headers', () => {
  it('come with API answers, errors and refusals of the HTTP layer', async () => {
    const app = appFor(toolscopes.start(toolscopes.dataDir()));
    const answers: [string, Response][] = [
      ['GET /api/v1/tools', await callApp(app, 'GET', '/api/v1/tools')],
      ['unknown API route', await callApp(app, 'GET', '/api/v1/nope')],
      ['wrong method', await callApp(app, 'POST', '/api/v1/traces')],
      ['bad body', await callApp(app, 'POST', '/api/v1/tool-calls', { body: 'not json' })],
      ['unknown Host', await callApp(app, 'GET', '/api/v1/tools', { headers: { host: 'evil.example:3000' } })],
      ['event stream', await callApp(app, 'GET', '/api/v1/events')],
    ];
    expect(answers.map(([, response]) => response.status)).toEqual([200, 404, 405, 400, 421, 200]);
    for (const [what, response] of answers) expectNoFraming(response, what);
    await answers[5]![1].body?.cancel();
  });

  it('come with a login refusal when keys exist', async () => {
    const ts = toolscopes.start(toolscopes.dataDir());
    ts.access.keys.create({ name: 'alice', role: 'admin' });
    const response = await callApp(appFor(ts), 'GET', '/api/v1/traces');
    expect(response.status).toBe(401);
    expectNoFraming(response, '401');
  });

  it('come with the pages handed to Next (as server/main.ts serves them)', async () => {
    const ts = toolscopes.start(toolscopes.dataDir());
    // A stand-in for Next's request handler: writes a page as Next does, on the Node response.
    const app = createHttpApp(ts, {
      heartbeatMs: 60_000,
      async next(_req, res) {
        res.setHeader('content-type', 'text/html; charset=utf-8');
        res.end('<!doctype html><title>Approvals</title>');
      },
    });
    apps.push(app);
    const server = createHttpServer(app, ts.config.limits);
    servers.push(server);
    const port = await listenOnLoopback(server);
    const base = `http://127.0.0.1:${port}`;
    for (const page of ['/approvals', '/', '/traces/some-id']) {
      const response = await fetch(`${base}${page}`);
      expect(response.status, page).toBe(200);
      expect(await response.text(), page).toContain('Approvals');
      expectNoFraming(response, page);
    }
    // The API's JSON is written straight to Node's response; errors and refusals too.
    for (const [path, status] of [
      ['/api/v1/approvals', 200],
      ['/api/v1/nope', 404],
    ] as const) {
      const api = await fetch(`${base}${path}`);
      expect(api.status, path).toBe(status);
      expectNoFraming(api, `${path} over Node`);
    }
    // What Node's parser refuses, before the app: answered by node-server.ts.
    for (const head of [`GET /api/v1/tools HTTP/1.1\r\nHost: 127.0.0.1\r\nX: ${'a'.repeat(20_000)}`, 'NOT HTTP']) {
      const raw = await socketExchange(port, head);
      expect([400, 431]).toContain(statusOf(raw));
      expect(rawHeaders(raw)).toMatchObject(FRAME_HEADERS);
    }
  });

  it("are next.config.mjs's headers for every path Next serves (npm run dev), the same pair", async () => {
    const file = pathToFileURL(path.resolve(__dirname, '../../next.config.mjs')).href;
    const { default: nextConfig } = (await import(file)) as { default: NextConfig };
    const rules = await nextConfig.headers!();
    const all = rules.find((rule) => getPathMatch(rule.source)('/approvals') && getPathMatch(rule.source)('/'));
    expect(all).toBeDefined();
    for (const path of ['/', '/approvals', '/traces/abc', '/_next/static/chunks/x.js', '/api/v1/tools']) {
      expect(getPathMatch(all!.source)(path), path).not.toBe(false);
    }
    const sent = Object.fromEntries(all!.headers.map(({ key, value }) => [key.toLowerCase(), value]));
    expect(sent).toEqual(FRAME_HEADERS);
    // Nothing that would stop Next's inline scripts.
    expect(sent['content-security-policy']).not.toMatch(/script-src|default-src/);
  });

  it('come with what proxy.ts answers for pages under npm run dev: a page passed on, a login redirect', async () => {
    const ts = toolscopes.start(toolscopes.dataDir());
    const global = globalThis as { __toolscope?: Toolscope };
    global.__toolscope = ts;
    try {
      const { proxy } = await import('../../proxy');
      const view = (path: string) =>
        proxy(new NextRequest(`http://127.0.0.1:3000${path}`, { headers: { host: '127.0.0.1:3000' } }));
      const page = view('/approvals');
      expect(page.headers.get('x-middleware-next')).toBe('1');
      expectNoFraming(page, 'a page passed on to Next');
      ts.access.keys.create({ name: 'alice', role: 'admin' });
      const redirect = view('/approvals');
      expect(redirect.status).toBe(307);
      expectNoFraming(redirect, 'the login redirect');
    } finally {
      delete global.__toolscope;
    }
  });
});
