import fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config';
import { createToolscope, type Toolscope } from '../../server/create-toolscope';
import { freePort } from '../../server/testing/free-port';
import { createHttpApp, type HttpApp } from '../app';
import { callApp, type Json } from '../testing/call-app';

/**
 * The breakers through the API of a real Toolscope whose config sets http_request's limits: a
 * dead port opens the breaker of its host only; `GET /api/v1/tools/:name` and the list show the
 * effective settings and the open breaker (`circuits`); a reviewer resets it (audited), an agent
 * or a viewer may not.
 */
let dir: string;
let ts: Toolscope;
let app: HttpApp;
let healthy: Server;
let healthyHost: string;
let deadHost: string;
const tokens: Record<'agent' | 'viewer' | 'reviewer', string> = { agent: '', viewer: '', reviewer: '' };

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-tools-circuit-'));
  fs.writeFileSync(
    path.join(dir, 'toolscope.config.json'),
    JSON.stringify({
      tools: {
        http_request: { timeout_ms: 4000, retries: 1, circuit_breaker: { failure_threshold: 2, cooldown_ms: 60_000 } },
        run_shell: { circuit_breaker: false },
      },
    }),
  );
  ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: dir }, dir));
  app = createHttpApp(ts, { heartbeatMs: 60_000 });
  for (const role of ['agent', 'viewer', 'reviewer'] as const) {
    tokens[role] = ts.access.keys.create({ name: `${role}-key`, role }).token;
  }
  healthy = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
  await new Promise<void>((resolve) => healthy.listen(0, '127.0.0.1', resolve));
  healthyHost = `127.0.0.1:${(healthy.address() as AddressInfo).port}`;
  deadHost = `127.0.0.1:${await freePort()}`;
});

afterAll(async () => {
  await new Promise((resolve) => healthy.close(resolve));
  await app.parts.mcp.close();
  await ts.stop({ by: 'test' });
  ts.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** One GET through `http_request`, sent by the agent key as a model's tool call. */
async function get(host: string): Promise<Json> {
  const response = await callApp(app, 'POST', '/api/v1/tool-calls', {
    token: tokens.agent,
    body: {
      tool_calls: [
        {
          id: `call_${Math.random().toString(36).slice(2)}`,
          type: 'function',
          function: { name: 'http_request', arguments: JSON.stringify({ url: `http://${host}/x` }) },
        },
      ],
    },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as Json).results[0];
}

const readTool = async (name: string, token = tokens.viewer) => {
  const response = await callApp(app, 'GET', `/api/v1/tools/${name}`, { token });
  return { status: response.status, json: (await response.json()) as Json };
};

const reset = async (token: string, body?: unknown, name = 'http_request') => {
  const response = await callApp(app, 'POST', `/api/v1/tools/${name}/circuit/reset`, { token, body });
  return { status: response.status, json: (await response.json()) as Json };
};

describe('circuit breakers through the API', () => {
  let failures: string[] = [];

  it('GET /api/v1/tools/:name gives the effective timeout, attempts and breaker thresholds; 404 for an unknown tool', async () => {
    const { status, json } = await readTool('http_request');
    expect(status).toBe(200);
    expect(json).toMatchObject({
      name: 'http_request',
      timeout_ms: 4000,
      retry: { max_attempts: 1 },
      circuit_breaker: { failure_threshold: 2, cooldown_ms: 60_000, per_key: true },
      circuit_state: 'closed',
      circuits: [],
    });
    expect((await readTool('run_shell')).json.circuit_breaker).toBeNull();
    expect((await readTool('calculator')).json).toMatchObject({ timeout_ms: 15_000, circuit_breaker: null });
    const missing = await readTool('no_such_tool');
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe('NOT_FOUND');
  });

  it('a dead port opens the breaker of its host only: the call names the host and when it tries again; another host still works', async () => {
    const first = await get(deadHost);
    const second = await get(deadHost);
    expect(first.error.code).toBe('CONNECTION_REFUSED');
    expect(second.error.code).toBe('CONNECTION_REFUSED');
    failures = [first.trace_id, second.trace_id];

    const blocked = await get(deadHost);
    expect(blocked.error.code).toBe('CIRCUIT_OPEN');
    expect(blocked.error.message).toContain(`http_request to ${deadHost} is paused`);
    expect(blocked.error.message).toMatch(/trial at \d{4}-\d\d-\d\dT[\d:.]+Z \(in \d+ s\)/);

    const fine = await get(healthyHost);
    expect(fine.status).toBe('succeeded');
  });

  it('shows the open breaker: its host, since when, until when, and the failures that tripped it, in the tool and in the list', async () => {
    const { json } = await readTool('http_request');
    expect(json.circuit_state).toBe('open');
    expect(json.circuits).toHaveLength(1);
    const [circuit] = json.circuits;
    expect(circuit).toEqual({
      key: deadHost,
      state: 'open',
      opened_at: expect.any(String),
      retry_at: expect.any(String),
      failures,
    });
    expect(Date.parse(circuit.retry_at) - Date.parse(circuit.opened_at)).toBe(60_000);

    const list = (await (await callApp(app, 'GET', '/api/v1/tools', { token: tokens.agent })).json()) as Json;
    const entry = list.tools.find((tool: Json) => tool.name === 'http_request');
    expect(entry).toMatchObject({ circuit_state: 'open', circuits: [circuit] });
  });

  it('POST /api/v1/tools/:name/circuit/reset: 403 for an agent and a viewer, 404 for an unknown tool, 400 for a bad key', async () => {
    for (const role of ['agent', 'viewer'] as const) {
      const refused = await reset(tokens[role]);
      expect(refused.status).toBe(403);
      expect(refused.json.error.message).toContain('circuits.reset');
    }
    expect((await reset(tokens.reviewer, undefined, 'no_such_tool')).status).toBe(404);
    const bad = await reset(tokens.reviewer, { key: 5 });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('INVALID_REQUEST');
    expect((await reset(tokens.reviewer, { host: deadHost })).status).toBe(400);
    expect((await readTool('http_request')).json.circuit_state).toBe('open');
  });

  it('a reviewer resets the host: 200 with the keys closed, audited, and the next call to that host runs', async () => {
    expect((await reset(tokens.reviewer, { key: healthyHost })).json).toEqual({ reset: [] });
    const done = await reset(tokens.reviewer, { key: deadHost });
    expect(done).toEqual({ status: 200, json: { reset: [deadHost] } });

    const entry = ts.access.audit.list({ kind: 'circuit.reset' }).entries[0];
    expect(entry).toMatchObject({
      kind: 'circuit.reset',
      target: 'http_request',
      principal: { name: 'reviewer-key', role: 'reviewer' },
      detail: { key: deadHost, reset: [deadHost] },
    });
    expect(ts.access.audit.verify()).toMatchObject({ ok: true });

    const tool = (await readTool('http_request')).json;
    expect(tool).toMatchObject({ circuit_state: 'closed', circuits: [] });
    // Tried again, not refused: it fails as the port does.
    expect((await get(deadHost)).error.code).toBe('CONNECTION_REFUSED');
  });

  it('without a body, resets every breaker of the tool', async () => {
    // With the failure after the reset above, two in a row: open again.
    await get(deadHost);
    expect((await readTool('http_request')).json.circuit_state).toBe('open');
    expect((await reset(tokens.reviewer)).json).toEqual({ reset: [deadHost] });
    expect((await readTool('http_request')).json.circuits).toEqual([]);
  });
});
