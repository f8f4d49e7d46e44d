import fs from 'node:fs';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '../access/access-token';
import { loadConfig } from '../config';
import { createToolscope, type Toolscope } from '../server/create-toolscope';
import { createHttpApp } from './app';
import { createHttpServer } from './node-server';
import { closeServer, listenOnLoopback } from './testing/listen';

/**
 * The agent path with TOOLSCOPE_TOKEN set, on a real loopback port and SQLite file: its own routes
 * (tool calls, events) and what it hands to Next (a stand-in here) pass the token check first.
 */
const TOKEN = 'agent-path-token-0123456789';
let dir: string;
let ts: Toolscope;
let server: http.Server;
let base: string;
const toNext: string[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-agent-token-'));
  ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: dir, TOOLSCOPE_TOKEN: TOKEN }, dir));
  const app = createHttpApp(ts, {
    heartbeatMs: 60_000,
    async next(req, res) {
      toNext.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('next');
    },
  });
  server = createHttpServer(app, ts.config.limits);
  base = `http://127.0.0.1:${await listenOnLoopback(server)}`;
});

afterAll(async () => {
  await closeServer(server);
  await ts.stop({ by: 'test' });
  ts.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const body = JSON.stringify({
  tool_calls: [{ id: 'c1', type: 'function', function: { name: 'calculator', arguments: '{"expression":"1+1"}' } }],
});
const call = (headers: Record<string, string>) =>
  fetch(`${base}/api/v1/tool-calls`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });

describe('the HTTP layer with TOOLSCOPE_TOKEN', () => {
  it('tool calls: 401 UNAUTHENTICATED without the token or with a wrong one, 200 with it', async () => {
    const without: Record<string, string>[] = [{}, { authorization: 'Bearer not-it-not-it-not-it' }];
    for (const headers of without) {
      const refused = await call(headers);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toEqual({ error: { code: 'UNAUTHENTICATED', message: expect.any(String) } });
    }
    expect((await call({ authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    const login = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: TOKEN, next: '/' }),
      redirect: 'manual',
    });
    expect(login.status).toBe(303);
    const cookie = login.headers.get('set-cookie')?.split(';')[0] ?? '';
    expect(cookie.startsWith(`${SESSION_COOKIE}=`)).toBe(true);
    expect((await call({ cookie })).status).toBe(200);
    expect((await call({ cookie: `${SESSION_COOKIE}=forged` })).status).toBe(401);
  });

  it('the event stream: 401 without the token, open with it', async () => {
    expect((await fetch(`${base}/api/v1/events`)).status).toBe(401);
    const controller = new AbortController();
    const open = await fetch(`${base}/api/v1/events`, {
      headers: { authorization: `Bearer ${TOKEN}` },
      signal: controller.signal,
    });
    expect(open.status).toBe(200);
    expect(open.headers.get('content-type')).toContain('text/event-stream');
    controller.abort();
  });

  it('hands nothing to Next without the token: pages go to /login, API routes are 401', async () => {
    toNext.length = 0;
    const page = await fetch(`${base}/traces/abc?x=1`, { redirect: 'manual' });
    expect(page.status).toBe(307);
    expect(page.headers.get('location')).toBe('/login?next=%2Ftraces%2Fabc%3Fx%3D1');
    expect((await fetch(`${base}/api/v1/stats`)).status).toBe(401);
    expect(toNext).toEqual([]);
    expect((await fetch(`${base}/login?next=%2F`)).status).toBe(200);
    expect((await fetch(`${base}/api/v1/stats`, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    expect(toNext).toEqual(['GET /login?next=%2F']);
  });
});
