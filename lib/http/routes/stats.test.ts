import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AllStatsJson, StatsJson } from '../../api/stats';
import { loadConfig } from '../../config';
import { makeTrace } from '../../db/trace-store-suite';
import { createToolscope, type Toolscope } from '../../server/create-toolscope';
import { createHttpApp, type HttpApp } from '../app';
import { callApp } from '../testing/call-app';

let dataDir: string;
let ts: Toolscope;
let app: HttpApp;

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-stats-'));
  ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: dataDir }, dataDir));
  app = createHttpApp(ts);
  // Real calls through the executor: two good, one failing inside the tool, one unknown tool.
  await ts.executor.execute({ name: 'calculator', arguments: { expression: '1 + 1' } });
  await ts.executor.execute({ name: 'calculator', arguments: { expression: '2 * 3' } });
  await ts.executor.execute({ name: 'calculator', arguments: { expression: '1 / ' } });
  await ts.executor.execute({ name: 'search_web', arguments: { q: 'x' } });
});

afterAll(async () => {
  await app.parts.mcp.close();
  ts.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const all = (query = '') => callApp(app, 'GET', `/api/v1/stats${query}`);
const one = (name: string, query = '') =>
  callApp(app, 'GET', `/api/v1/tools/${encodeURIComponent(name)}/stats${query}`);

describe('GET /api/v1/tools/:name/stats', () => {
  it('answers points over the range with calls, failures, error rate and p50/p95', async () => {
    const response = await one('calculator', '?range=hour');
    expect(response.status).toBe(200);
    const body = (await response.json()) as StatsJson;
    expect(body.range).toBe('hour');
    expect(body.bucket_ms).toBe(60_000);
    expect(body.points).toHaveLength(60);
    const last = body.points.at(-1)!;
    expect(Date.parse(last.t)).toBeLessThanOrEqual(Date.now());
    expect(new Date(Date.parse(last.t)).toISOString()).toBe(last.t);
    const calls = body.points.reduce((sum, p) => sum + p.calls, 0);
    const failures = body.points.reduce((sum, p) => sum + p.failures, 0);
    expect([calls, failures]).toEqual([3, 1]);
    expect(body.summary).toMatchObject({ calls: 3, failures: 1, error_rate: 1 / 3 });
    expect(body.summary.p50_ms).toBeGreaterThan(0);
    expect(body.summary.p95_ms).toBeGreaterThanOrEqual(body.summary.p50_ms!);
    const empty = body.points.find((p) => p.calls === 0);
    expect(empty).toMatchObject({ calls: 0, failures: 0, error_rate: null, p50_ms: null, p95_ms: null });
  });

  it('defaults to the last day and reads every range', async () => {
    expect(((await (await one('calculator')).json()) as StatsJson).range).toBe('day');
    for (const [range, points] of [
      ['day', 96],
      ['week', 168],
    ] as const) {
      const body = (await (await one('calculator', `?range=${range}`)).json()) as StatsJson;
      expect(body.points).toHaveLength(points);
      expect(body.summary.calls).toBe(3);
    }
  });

  it('answers for a tool only seen in the calls, and for a registered tool never called', async () => {
    expect(((await (await one('search_web')).json()) as StatsJson).summary.calls).toBe(1);
    const unused = (await (await one('write_file', '?range=week')).json()) as StatsJson;
    expect(unused.summary).toEqual({ calls: 0, failures: 0, error_rate: null, p50_ms: null, p95_ms: null });
  });

  it('answers 404 for a tool never seen nor registered, and 400 for a bad range', async () => {
    const missing = await one('no_such_tool');
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe('NOT_FOUND');
    const bad = await one('calculator', '?range=month');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      error: { code: 'INVALID_QUERY', message: 'range must be one of: hour, day, week.' },
    });
  });
});

describe('GET /api/v1/stats', () => {
  it('adds up every tool, and gives each registered or seen tool its row', async () => {
    const response = await all('?range=hour');
    expect(response.status).toBe(200);
    const body = (await response.json()) as AllStatsJson;
    expect(body.summary).toMatchObject({ calls: 4, failures: 2 });
    const row = (name: string) => body.tools.find((t) => t.name === name);
    // The calculator has no circuit breaker; read_file has one.
    expect(row('calculator')).toMatchObject({ registered: true, calls: 3, failures: 1, circuit_state: null });
    expect(row('calculator')?.calls_per_bucket).toHaveLength(60);
    expect(row('calculator')?.calls_per_bucket.reduce((a, b) => a + b, 0)).toBe(3);
    expect(row('search_web')).toMatchObject({ registered: false, calls: 1, failures: 1, circuit_state: null });
    expect(row('write_file')).toMatchObject({ registered: true, calls: 0, error_rate: null, last_called_at: null });
    expect(Date.parse(row('calculator')!.last_called_at!)).toBeLessThanOrEqual(Date.now());
    expect(row('read_file')?.circuit_state).toBe('closed');
    expect(body.tools.map((t) => t.name)).toEqual([...body.tools.map((t) => t.name)].sort());
  });

  it('answers 400 for a bad range', async () => {
    const response = await all('?range=1h');
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe('INVALID_QUERY');
  });

  it('sees a call as soon as the store has it, before its group commit', async () => {
    const before = ((await (await all('?range=hour')).json()) as AllStatsJson).summary.calls;
    ts.store.finish(makeTrace({ tool: 'calculator', createdAt: Date.now() - 2, finishedAt: Date.now() }));
    const after = ((await (await all('?range=hour')).json()) as AllStatsJson).summary.calls;
    expect(after).toBe(before + 1);
  });
});
