import { describe, expect, it } from 'vitest';
import type { RunFigures } from './load-generator';
import { type BenchResult, checkTargets, formatTable, resultFileName, summarizeLoad } from './results';

const run = (rps: number, p50Ms: number, p99Ms: number, errors = 0): RunFigures => ({
  seconds: 5,
  ok: rps * 5,
  errors,
  rps,
  p50Ms,
  p99Ms,
});

function result(app: { rps: number; p99Ms: number }, persisted = { answered: 100, rows: 100, succeeded: 100 }) {
  const http = (rps: number, p99Ms: number) => ({
    rps,
    p50Ms: p99Ms / 2,
    p99Ms,
    errors: 0,
    answered: 50,
    runs: [],
    serverCpuPercent: 99,
    clientCpuPercent: 40,
  });
  const partial: Omit<BenchResult, 'targets'> = {
    version: 1,
    date: '2026-11-30T01:02:03.456Z',
    machine: { cores: 2, cpu: 'cpu', node: 'v20.20.2', platform: 'linux', loadBefore: [1, 1, 1], loadAfter: [2, 2, 2] },
    settings: {
      connections: 50,
      warmupSeconds: 3,
      seconds: 5,
      runs: 3,
      subscribers: 200,
      executorCalls: 1000,
      executorRuns: 3,
      storeCalls: 1000,
      body: '{}',
    },
    executor: {
      inMemory: { p50Us: 7.7, p99Us: 70, meanUs: 9, concurrentPerSecond: 90_000, inFlight: 50, calls: 1000, runs: 3 },
      sqlite: { p50Us: 10, p99Us: 90, meanUs: 40, concurrentPerSecond: 17_000, inFlight: 50, calls: 1000, runs: 3 },
    },
    langchain: { p50Us: 24, p99Us: 60, meanUs: 28 },
    batch: { calls: 20, concurrency: 4, idealMs: 160, poolMs: 162, chunkedIdealMs: 305, chunkedMs: 307 },
    timeouts: { toolAnsweredMs: 100.6, shellAnsweredMs: 101, shellGoneAfterMs: 3, shellError: null },
    store: {
      calls: 10_000_000,
      seedSeconds: 1600,
      bytesPerCall: 580,
      dbBytes: 5.8e9,
      walBytes: 0,
      pages: [
        { name: 'traces list', path: '/', p50Ms: 0.3, p99Ms: 0.6 },
        { name: 'tools page (day)', path: '/tools', p50Ms: 2.1, p99Ms: 4 },
      ],
      search: [{ query: 'refund', p50Ms: 12, p99Ms: 20, matches: 50 }],
      server: {
        rssAtRestBytes: 250 * 2 ** 20,
        rssAfterLoadBytes: 410 * 2 ** 20,
        seconds: 10,
        clients: 4,
        requests: 1_234,
        errors: 0,
        paths: ['/', '/?q=refund'],
      },
      notes: [],
    },
    http: {
      bare: http(32_000, 3),
      app: http(app.rps, app.p99Ms),
      appWithSubscribers: {
        ...http(app.rps, app.p99Ms),
        subscribers: { count: 200, expected: 50, min: 50, max: 50, failed: 0, cpuPercent: 20 },
      },
      appNotFound: { ...http(660, 150), path: '/bench-not-found' },
      persisted,
      appRss: { atRestBytes: 200 * 2 ** 20, afterLoadBytes: 300 * 2 ** 20 },
      otlp: { requests: 12, bytes: 3 * 2 ** 20 },
    },
  };
  return { ...partial, targets: checkTargets(partial) };
}

describe('summarizeLoad', () => {
  it('takes the median of each figure over the runs and sums the errors, warm-up included', () => {
    const figures = summarizeLoad({
      warmup: run(100, 1, 2, 1),
      runs: [run(300, 3, 30), run(100, 1, 10, 2), run(200, 2, 20)],
      answered: 3000,
      cpuPercent: 50,
    });
    expect(figures).toMatchObject({ rps: 200, p50Ms: 2, p99Ms: 20, errors: 3, answered: 3000 });
  });
});

describe('checkTargets', () => {
  it("reports today's app as missing the speed targets, with its figures", () => {
    const targets = checkTargets(result({ rps: 440, p99Ms: 200 }));
    const byName = Object.fromEntries(targets.map((target) => [target.name, target]));
    expect(byName['app calls/s (#7)']).toMatchObject({ met: false, value: '440', target: '≥ 5,000' });
    expect(byName['app p99 (#7)']).toMatchObject({ met: false, value: '200.0 ms' });
    expect(byName['app / bare node:http (#7)']).toMatchObject({ met: false, value: '1.4%' });
    expect(byName['every answered call persisted (#7)']?.met).toBe(true);
    expect(byName['each subscriber received every event (#7)']?.met).toBe(true);
  });

  it('meets them at the targets', () => {
    const targets = checkTargets(result({ rps: 5_000, p99Ms: 19.9 }));
    expect(targets.filter((target) => !target.met).map((target) => target.name)).toEqual([
      'executor p50, in-memory store (#12)',
      'executor persisted, 100,000 calls (#12)',
    ]);
  });

  it('measures the batch against its ideal schedule and the timeouts against theirs', () => {
    const value = result({ rps: 5_000, p99Ms: 10 });
    value.batch.poolMs = 166;
    value.timeouts.shellError = 'success: undefined';
    const byName = Object.fromEntries(checkTargets(value).map((target) => [target.name, target]));
    expect(byName['batch, max_concurrency 4 (#12)']).toMatchObject({ met: false, value: '166.0 ms' });
    expect(byName['timed-out run_shell processes gone (#12)']).toMatchObject({
      met: false,
      value: 'success: undefined',
    });
    expect(byName['executor p50 in memory vs LangChain (#12)']).toMatchObject({ met: true, value: '7.7 µs' });
  });

  it('checks the store at scale: every page under 50 ms, every search under 100 ms, bytes per call', () => {
    const value = result({ rps: 5_000, p99Ms: 10 });
    const met = (v: typeof value) => Object.fromEntries(checkTargets(v).map((t) => [t.name, t.met]));
    expect(met(value)['slowest page p50 at 10,000,000 calls (#12)']).toBe(true);
    value.store!.search.push({ query: 'x y', p50Ms: 120, p99Ms: 200, matches: 0 });
    value.store!.bytesPerCall = 914;
    const byName = Object.fromEntries(checkTargets(value).map((t) => [t.name, t]));
    expect(byName['slowest text search p50 at 10,000,000 (#12)']).toMatchObject({
      met: false,
      value: '120.0 ms ("x y")',
    });
    expect(byName['bytes per stored call (#12)']).toMatchObject({ met: false, value: '914' });
    expect(formatTable(value)).toContain('store, 10,000,000 calls: 914 bytes per call');
  });

  it('misses persistence when fewer calls are stored than were answered', () => {
    const targets = checkTargets(result({ rps: 5_000, p99Ms: 10 }, { answered: 100, rows: 100, succeeded: 98 }));
    expect(targets.find((target) => target.name.startsWith('every answered'))?.met).toBe(false);
  });
});

describe('the result', () => {
  it('is plain JSON that survives a round trip', () => {
    const value = result({ rps: 440, p99Ms: 200 });
    expect(JSON.parse(JSON.stringify(value))).toEqual(value);
  });

  it('prints one table with every row and the machine line', () => {
    const table = formatTable(result({ rps: 440, p99Ms: 200 }));
    expect(table).toMatch(
      /met\s+server RSS at 10,000,000 calls reported \(#12\)\s+at rest and after the load\s+250 MB at rest, 410 MB after \(0 errors\)/,
    );
    expect(table).toContain('2 cores');
    expect(table).toContain('node v20.20.2');
    for (const label of [
      'executor, in-memory',
      'executor, SQLite',
      'bare node:http',
      'app: POST',
      'SSE subscribers',
      'LangChain tool.invoke',
      'batch of 20 mixed sleeps',
      'timeout 100 ms',
    ]) {
      expect(table).toContain(label);
    }
    expect(table).toContain('GET /bench-not-found (404)');
    expect(table).toContain('200 MB at rest, 300 MB after the loads');
    expect(table).toContain('OpenTelemetry export (12 exports, 3 MB received)');
    expect(table).toMatch(/MISSED\s+app calls\/s \(#7\)\s+≥ 5,000\s+440/);
  });

  it("prints the built server's RSS on the store at scale, at rest and after the load", () => {
    const value = result({ rps: 440, p99Ms: 200 });
    expect(formatTable(value)).toContain(
      'server RSS (built app on a copy of this folder, process tree): 250 MB at rest (first page served), ' +
        '410 MB after the load (1,234 pages and searches over HTTP in 10 s, 4 clients, 0 errors)',
    );
    expect(JSON.parse(JSON.stringify(value)).store.server).toMatchObject({
      rssAtRestBytes: 250 * 2 ** 20,
      rssAfterLoadBytes: 410 * 2 ** 20,
    });
    value.store!.server = {
      ...value.store!.server!,
      rssAfterLoadBytes: null,
      errors: 2,
      firstError: '/tools: status 500',
    };
    const table = formatTable(value);
    expect(table).toContain('250 MB at rest (first page served), – after the load');
    expect(table).toContain('first error, server on the store: /tools: status 500');
    expect(checkTargets(value).find((t) => t.name === 'server RSS at 10,000,000 calls reported (#12)')).toMatchObject({
      met: false,
      value: '250 MB at rest, – after (2 errors)',
    });
    delete value.store!.server;
    expect(formatTable(value)).toContain('server RSS: not measured');
    expect(checkTargets(value).find((t) => t.name.startsWith('server RSS at'))).toMatchObject({
      met: false,
      value: 'not measured',
    });
  });

  it('shows the first error of a measurement that had any', () => {
    const value = result({ rps: 440, p99Ms: 200 });
    value.http.app.firstError = 'status 500: {"error":{"code":"INTERNAL"}}';
    expect(formatTable(value)).toContain('first error, app: status 500');
  });

  it('is written under a file name without colons', () => {
    expect(resultFileName('2026-11-30T01:02:03.456Z')).toBe('2026-11-30T01-02-03Z.json');
  });
});
