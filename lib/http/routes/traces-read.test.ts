import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../config';
import { InvalidCursorError } from '../../db/trace-store';
import { createToolscope, type Toolscope } from '../../server/create-toolscope';
import { createHttpApp, type HttpApp } from '../app';
import { callApp } from '../testing/call-app';

/** Reading calls through the HTTP layer's app: one trace, and the list with its filters and pages. */
let dataDir: string;
let ts: Toolscope;
let app: HttpApp;

beforeAll(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-traces-'));
  ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: dataDir }, dataDir));
  app = createHttpApp(ts);
});

afterAll(() => {
  ts.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const post = (body: unknown) => callApp(app, 'POST', '/api/v1/tool-calls', { body });

const getTrace = (id: string) => callApp(app, 'GET', `/api/v1/traces/${id}`);
const listTraces = (query = '') => callApp(app, 'GET', `/api/v1/traces${query}`);

function call(id: string, name: string, args: unknown) {
  return {
    id,
    type: 'function',
    function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
  };
}

describe('GET /api/v1/traces', () => {
  it('returns the whole redacted trace, never the raw arguments', async () => {
    const body = await (
      await post({
        tool_calls: [
          call('call_secret', 'calculator', { expression: '1+1', api_key: 'sk-live-abcdefghijklmnopqrstu' }),
        ],
      })
    ).json();
    const id = body.results[0].trace_id;
    const response = await getTrace(id);
    expect(response.status).toBe(200);
    const trace = await response.json();
    expect(trace).toMatchObject({ id, tool_call_id: 'call_secret', tool: 'calculator' });
    expect(trace.stages.map((s: { name: string }) => s.name)).toEqual([
      'parse',
      'validate',
      'permission',
      'execute',
      'normalize',
      'trace',
    ]);
    expect(trace.stages[0]).toEqual(
      expect.objectContaining({ status: 'ok', started_at: expect.any(Number), duration_ms: expect.any(Number) }),
    );
    expect(trace.arguments.api_key).toBe('[REDACTED]');
    expect(JSON.stringify(trace)).not.toContain('abcdefghijklmnopqrstu');
    expect(trace).not.toHaveProperty('raw_arguments');
    expect(typeof trace.model_message).toBe('string');
    expect(trace.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('answers 404 for an unknown trace', async () => {
    const response = await getTrace('nope');
    expect(response.status).toBe(404);
    expect((await response.json()).error.code).toBe('NOT_FOUND');
  });

  it('lists newest first with filters and keyset pagination', async () => {
    await post({
      session_id: 'paging',
      tool_calls: Array.from({ length: 5 }, (_, i) => call(`p${i}`, 'calculator', { expression: `${i}+1` })),
      max_concurrency: 1,
    });
    const first = await (await listTraces(`?session=paging&limit=2`)).json();
    expect(first.items.map((t: { tool_call_id: string }) => t.tool_call_id)).toEqual(['p4', 'p3']);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await (await listTraces(`?session=paging&limit=2&cursor=${first.next_cursor}`)).json();
    expect(second.items.map((t: { tool_call_id: string }) => t.tool_call_id)).toEqual(['p2', 'p1']);
    const third = await (await listTraces(`?session=paging&limit=2&cursor=${second.next_cursor}`)).json();
    expect(third.items.map((t: { tool_call_id: string }) => t.tool_call_id)).toEqual(['p0']);
    expect(third.next_cursor).toBeNull();
    expect(first.total).toBeNull();
    expect(first.items[0].arguments_preview).toBe('{"expression":"4+1"}');

    const all = await (await listTraces(`?limit=1`)).json();
    const calculator = await (await listTraces(`?tool=calculator&limit=1`)).json();
    const counted = ts.store.toolStats().find((tool) => tool.tool === 'calculator')?.calls;
    expect(calculator.total).toBe(counted);
    expect(all.total).toBeGreaterThanOrEqual(calculator.total);

    const failed = await (await listTraces(`?status=failed&tool=calculator`)).json();
    expect(failed.items.length).toBeGreaterThan(0);
    expect(failed.items.every((t: { status: string }) => t.status === 'failed')).toBe(true);
  });

  it.each([
    ['status=bogus', 'INVALID_QUERY'],
    ['limit=0', 'INVALID_QUERY'],
    ['limit=abc', 'INVALID_QUERY'],
    ['cursor=garbage!', 'INVALID_CURSOR'],
  ])('answers 400 for %s', async (query, code) => {
    const response = await listTraces(`?${query}`);
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe(code);
  });
});

describe('GET /api/v1/traces?cursor=garbage', () => {
  it('answers 400 INVALID_CURSOR when the store throws its own copy of the error class', async () => {
    // The production build can bundle the store into another chunk than the handler, each with
    // its own InvalidCursorError class; a fresh module graph reproduces that here.
    vi.resetModules();
    const copy = await import('../../db/sqlite-trace-store');
    const { openDatabase } = await import('../../db/open-database');
    const { createVault } = await import('../../db/vault');
    const store = copy.createSqliteTraceStore({
      db: openDatabase(ts.config.dbPath),
      vault: createVault({ dir: ts.config.dataDir }),
    });
    try {
      let thrown: unknown;
      try {
        store.list({ cursor: 'garbage' });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).not.toBeInstanceOf(InvalidCursorError);
      const withCopy = createHttpApp({ ...ts, store });
      const response = await callApp(withCopy, 'GET', '/api/v1/traces?cursor=garbage');
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        error: { code: 'INVALID_CURSOR', message: expect.stringContaining('cursor') },
      });
    } finally {
      store.close();
    }
  });
});
