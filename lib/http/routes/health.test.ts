import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { ROLES } from '../../access/roles';
import { otelSettingsFromEnv } from '../../otel/otel-settings';
import type { Toolscope } from '../../server/create-toolscope';
import { testToolscopes } from '../../server/testing/test-toolscopes';
import { appOf, callApp, type Json } from '../testing/call-app';

/** `GET /api/v1/health` through the whole chain of a real Toolscope. */
const toolscopes = testToolscopes('toolscope-health-');
let errors: MockInstance<typeof console.error>;
beforeEach(() => {
  errors = vi.spyOn(console, 'error').mockImplementation(() => {});
});
afterEach(() => errors.mockRestore());

async function health(ts: Toolscope, token?: string) {
  const response = await callApp(appOf(ts), 'GET', '/api/v1/health', { token });
  return { status: response.status, headers: response.headers, json: (await response.json()) as Json };
}

describe('GET /api/v1/health', () => {
  it('gives the whole body in local mode: store, MCP servers, OpenTelemetry, vault', async () => {
    const dir = toolscopes.dataDir({
      // A server that cannot start: listed with its state.
      mcp: { servers: { down: { command: '/nonexistent/toolscope-no-such-server' } } },
    });
    const otel = otelSettingsFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://user:secret@127.0.0.1:9' });
    const ts = toolscopes.start(dir, { otel });
    const { status, headers, json } = await health(ts);
    expect(status).toBe(200);
    expect(headers.get('cache-control')).toBe('no-store');
    expect(json).toEqual({
      status: 'ok',
      store: { status: 'ok', queued: 0, last_error: null, disk_free_bytes: expect.any(Number) },
      mcp: [
        {
          name: 'down',
          transport: 'stdio',
          state: expect.any(String),
          error: expect.toBeOneOf([null, expect.any(String)]),
          next_retry_at: expect.toBeOneOf([null, expect.any(String)]),
        },
      ],
      // The endpoint without its credentials.
      otel: { enabled: true, endpoint: 'http://127.0.0.1:9/v1/traces', last_error: null },
      vault: expect.objectContaining({ status: 'ok' }),
    });
    expect(json.store.disk_free_bytes).toBeGreaterThan(0);
  });

  it('answers a probe without a key only its status once keys are in use; every role gets the whole body', async () => {
    const ts = toolscopes.start(toolscopes.dataDir());
    const tokens = ROLES.map((role) => ts.access.keys.create({ name: `${role}-key`, role }).token);
    expect(await health(ts)).toMatchObject({ status: 200, json: { status: 'ok' } });
    expect(Object.keys((await health(ts)).json)).toEqual(['status']);
    for (const token of tokens) {
      const { status, json } = await health(ts, token);
      expect(status).toBe(200);
      expect(Object.keys(json)).toEqual(expect.arrayContaining(['status', 'store', 'mcp', 'otel']));
      expect(json.otel).toEqual({ enabled: false, endpoint: null, last_error: null });
    }
    // A key that is wrong is told so, as anywhere else.
    const wrong = await health(ts, 'tsk_not-a-key-at-all');
    expect(wrong.status).toBe(401);
    expect(wrong.json.error.code).toBe('UNAUTHENTICATED');
  });

  it('says degraded, with the last error, while the store cannot commit, and ok once it has', async () => {
    const dir = toolscopes.dataDir();
    const ts = toolscopes.start(dir);
    const agent = ts.access.keys.create({ name: 'agent', role: 'agent' }).token;
    const other = new Database(path.join(dir, 'toolscope.db'));
    other.exec('BEGIN IMMEDIATE');
    try {
      const call = await callApp(appOf(ts), 'POST', '/api/v1/tool-calls', {
        token: agent,
        body: {
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'calculator', arguments: '{"expression":"1"}' } },
          ],
        },
      });
      expect(call.status).toBe(200);
      const during = await health(ts, agent);
      expect(during.json).toMatchObject({
        status: 'degraded',
        store: {
          status: 'degraded',
          queued: 1,
          last_error: { code: 'SQLITE_BUSY', message: 'database is locked', at: expect.any(String) },
        },
      });
      expect(Date.parse(during.json.store.last_error.at)).toBeGreaterThan(Date.now() - 60_000);
      expect((await health(ts)).json).toEqual({ status: 'degraded' });
      other.exec('COMMIT');
      const deadline = Date.now() + 10_000;
      while ((await health(ts)).json.status !== 'ok') {
        if (Date.now() > deadline) throw new Error('the store did not recover');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // The last error stays for whoever wants to know what happened; the queue is empty.
      expect((await health(ts, agent)).json.store).toMatchObject({
        status: 'ok',
        queued: 0,
        last_error: { code: 'SQLITE_BUSY' },
      });
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK');
      other.close();
    }
  });
});
