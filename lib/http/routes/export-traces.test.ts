import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { EXPORT_PAGE_SIZE } from '../../api/export-traces';
import { traceJson } from '../../api/serialize';
import { loadConfig } from '../../config';
import { createSqliteTraceStore } from '../../db/sqlite-trace-store';
import { createTempDataDir, openTestDatabase } from '../../db/test-database';
import type { TraceStore } from '../../db/trace-store';
import { makeTrace } from '../../db/trace-store-suite';
import { createVault } from '../../db/vault';
import { createToolscope, type Toolscope } from '../../server/create-toolscope';
import { createHttpApp } from '../app';
import { callApp } from '../testing/call-app';

/**
 * `GET /api/v1/traces/export` through the HTTP layer's app: a real Toolscope for the chain, its
 * store swapped for each test's own with a small scan window, so a search must follow the cursor
 * through several windows.
 */
const temp = createTempDataDir('toolscope-export-');
let ts: Toolscope;
beforeAll(() => {
  const dir = path.join(temp.dir, 'toolscope');
  ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: dir }, dir));
});
afterAll(async () => {
  await ts.stop({ by: 'test' });
  ts.close();
  temp.remove();
});

let store: TraceStore;
let count = 0;
beforeEach(() => {
  const dir = path.join(temp.dir, `case-${++count}`);
  store = createSqliteTraceStore({ db: openTestDatabase(dir), vault: createVault({ dir }), scanWindow: 50 });
});
afterEach(() => store.close());

/** The export through an app whose Toolscope reads `traces`. */
const exportTraces = (query = '', traces: TraceStore = store) =>
  callApp(createHttpApp({ ...ts, store: traces }), 'GET', `/api/v1/traces/export${query}`);

const lines = async (response: Response) =>
  (await response.text())
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));

describe('GET /api/v1/traces/export', () => {
  it('streams every matching trace, newest first, in the shape of GET /traces/:id, without raw arguments', async () => {
    const secret = 'sk-live-do-not-export-me';
    const traces = Array.from({ length: EXPORT_PAGE_SIZE + 30 }, (_, i) =>
      makeTrace({
        tool: i % 2 ? 'odd' : 'even',
        arguments: { token: '[REDACTED]', n: i },
        rawArguments: JSON.stringify({ token: secret, n: i }),
      }),
    );
    for (const trace of traces) store.finish(trace);

    vi.useFakeTimers({ toFake: ['Date'], now: Date.UTC(2026, 10, 30, 12) });
    let response: Response;
    try {
      response = await exportTraces('?tool=odd');
    } finally {
      vi.useRealTimers();
    }
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    expect(response.headers.get('content-disposition')).toBe(
      'attachment; filename="toolscope-traces-2026-11-30.jsonl"',
    );
    expect(response.headers.get('cache-control')).toBe('no-store');
    const text = await response.clone().text();
    expect(text).not.toContain(secret);
    const exported = await lines(response);
    const expected = traces.filter((trace) => trace.tool === 'odd').reverse();
    expect(exported.map((line) => line.id)).toEqual(expected.map((trace) => trace.id));
    const first = store.get(expected[0]?.id ?? '');
    expect(exported[0]).toEqual(JSON.parse(JSON.stringify(traceJson(first as NonNullable<typeof first>))));
  });

  it('walks past the scan window of a search, following the cursor to the oldest call', async () => {
    const needles: string[] = [];
    for (let i = 0; i < 400; i++) {
      const trace = makeTrace(i % 97 === 0 ? { stderr: `needle ${i}` } : {});
      if (i % 97 === 0) needles.unshift(trace.id);
      store.finish(trace);
    }
    const exported = await lines(await exportTraces('?q=NEEDLE'));
    expect(exported.map((line) => line.id)).toEqual(needles);
  });

  it('reads one page at a time, as the client reads', async () => {
    for (let i = 0; i < EXPORT_PAGE_SIZE * 3; i++) store.finish(makeTrace());
    let pages = 0;
    const counting: TraceStore = {
      ...store,
      list: (query) => {
        pages++;
        return store.list(query);
      },
    };
    const reader = ((await exportTraces('', counting)).body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toMatch(/^\{"id":/);
    expect(pages).toBe(1);
    await reader.cancel();
  });

  it('answers 400 JSON for bad filters', async () => {
    for (const query of ['?status=bogus', '?from=yesterday', `?tool=${'x'.repeat(300)}`]) {
      const response = await exportTraces(query);
      expect(response.status, query).toBe(400);
      expect((await response.json()).error.code).toBe('INVALID_QUERY');
    }
  });

  it('exports nothing, as an empty body, when nothing matches', async () => {
    store.finish(makeTrace());
    expect(await (await exportTraces('?tool=nope')).text()).toBe('');
  });
});
