import type { OverheadFigures } from './executor-overhead';
import type { LoadReport, RunFigures } from './load-generator';
import { median } from './percentile';
import type { BatchFigures, InvokeFigures, TimeoutFigures } from './reference-rows';
import type { StoreScaleReport } from './store-scale';

/** One HTTP measurement: the median of its runs' figures, errors summed over the runs. */
export interface HttpFigures {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  /** Good answers over the warm-up and every run. */
  answered: number;
  runs: RunFigures[];
  /** Share of one core the server's process tree and the load generator used over the load (warm-up included). */
  serverCpuPercent: number | null;
  clientCpuPercent: number | null;
  firstError?: string;
}

export interface TargetCheck {
  name: string;
  target: string;
  value: string;
  met: boolean;
}

/** What `npm run bench` writes to `bench/results/<date>.json`; the table on stdout shows the same. */
export interface BenchResult {
  version: 1;
  date: string;
  machine: { cores: number; cpu: string; node: string; platform: string; loadBefore: number[]; loadAfter: number[] };
  settings: {
    connections: number;
    warmupSeconds: number;
    seconds: number;
    runs: number;
    subscribers: number;
    executorCalls: number;
    executorRuns: number;
    storeCalls: number;
    body: string;
  };
  executor: { inMemory: OverheadFigures; sqlite: OverheadFigures };
  /** LangChain's `tool.invoke` on the same no-op tool and schema: the reference row (no persistence). */
  langchain: InvokeFigures;
  batch: BatchFigures;
  timeouts: TimeoutFigures;
  /**
   * The store at scale (`BENCH_STORE_CALLS`, 10,000,000): each page's server-side reads, text search, bytes per call,
   * the built server's RSS on it at rest and after page loads (`server`); null when skipped (0).
   */
  store: StoreScaleReport | null;
  http: {
    bare: HttpFigures;
    app: HttpFigures;
    appWithSubscribers: HttpFigures & {
      subscribers: {
        count: number;
        expected: number;
        min: number;
        max: number;
        failed: number;
        cpuPercent: number | null;
        firstError?: string;
      };
    };
    appNotFound: HttpFigures & { path: string };
    /** Calls answered 200 by the app (both loads) against the rows in its SQLite file after it stopped. */
    persisted: { answered: number; rows: number; succeeded: number };
    /** Resident memory of the app's process tree once it answered, and after every load (subscribers still open). */
    appRss: { atRestBytes: number | null; afterLoadBytes: number | null };
    /** What the app's OpenTelemetry export sent to the bench's OTLP receiver. */
    otlp: { requests: number; bytes: number };
  };
  targets: TargetCheck[];
}

/** The medians of a load's runs. */
export function summarizeLoad(
  report: LoadReport,
  cpu: { server: number | null; client: number | null } = { server: null, client: null },
): HttpFigures {
  return {
    rps: median(report.runs.map((run) => run.rps)),
    p50Ms: median(report.runs.map((run) => run.p50Ms)),
    p99Ms: median(report.runs.map((run) => run.p99Ms)),
    errors: report.runs.reduce((sum, run) => sum + run.errors, report.warmup.errors),
    answered: report.answered,
    runs: report.runs,
    serverCpuPercent: cpu.server,
    clientCpuPercent: cpu.client,
    ...(report.firstError === undefined ? {} : { firstError: report.firstError }),
  };
}

const count = (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–');
const ms = (n: number) => (Number.isFinite(n) ? `${n < 10 ? n.toFixed(2) : n.toFixed(1)} ms` : '–');
const us = (n: number) => (Number.isFinite(n) ? `${n.toFixed(1)} µs` : '–');
const mb = (n: number | null) => (n === null ? '–' : `${(n / 2 ** 20).toFixed(0)} MB`);
const pct = (n: number) => (Number.isFinite(n) ? `${(n * 100).toFixed(1)}%` : '–');

/** The targets of issues #7 and #12 that this bench measures, each with the figure it got. */
export function checkTargets(result: Omit<BenchResult, 'targets'>): TargetCheck[] {
  const { app, bare, appWithSubscribers: sse, persisted } = result.http;
  const ratio = app.rps / bare.rps;
  const everyEvent = sse.subscribers.failed === 0 && sse.subscribers.min >= sse.subscribers.expected;
  return [
    {
      name: 'executor p50, in-memory store (#12)',
      target: '≤ 5 µs',
      value: us(result.executor.inMemory.p50Us),
      met: result.executor.inMemory.p50Us <= 5,
    },
    {
      name: 'executor p50 in memory vs LangChain (#12)',
      target: `< LangChain's ${us(result.langchain.p50Us)}`,
      value: us(result.executor.inMemory.p50Us),
      met: result.executor.inMemory.p50Us < result.langchain.p50Us,
    },
    {
      name: 'executor persisted, 100,000 calls (#12)',
      target: '≥ 40,000 calls/s',
      value: `${count(result.executor.sqlite.concurrentPerSecond)} calls/s`,
      met: result.executor.sqlite.concurrentPerSecond >= 40_000,
    },
    {
      name: `batch, max_concurrency ${result.batch.concurrency} (#12)`,
      target: `≤ ideal ${ms(result.batch.idealMs)} + 5 ms`,
      value: ms(result.batch.poolMs),
      met: result.batch.poolMs <= result.batch.idealMs + 5,
    },
    {
      name: '100 ms timeout answered (#12)',
      target: '≤ 110 ms',
      value: `${ms(result.timeouts.toolAnsweredMs)}, run_shell ${ms(result.timeouts.shellAnsweredMs)}`,
      met: result.timeouts.toolAnsweredMs <= 110 && result.timeouts.shellAnsweredMs <= 110,
    },
    {
      name: 'timed-out run_shell processes gone (#12)',
      target: '≤ 100 ms after',
      value: result.timeouts.shellError ?? ms(result.timeouts.shellGoneAfterMs),
      met: result.timeouts.shellError === null && result.timeouts.shellGoneAfterMs <= 100,
    },
    ...storeTargets(result.store),
    { name: 'app calls/s (#7)', target: '≥ 5,000', value: count(app.rps), met: app.rps >= 5000 },
    { name: 'app p99 (#7)', target: '< 20 ms', value: ms(app.p99Ms), met: app.p99Ms < 20 },
    { name: 'app / bare node:http (#7)', target: '≥ 15%', value: pct(ratio), met: ratio >= 0.15 },
    {
      name: 'every answered call persisted (#7)',
      target: `${count(persisted.answered)} succeeded rows`,
      value: `${count(persisted.succeeded)} succeeded of ${count(persisted.rows)} rows`,
      met: persisted.answered > 0 && persisted.succeeded >= persisted.answered,
    },
    {
      name: `calls/s with ${sse.subscribers.count} subscribers (#7)`,
      target: '≥ 5,000',
      value: count(sse.rps),
      met: sse.rps >= 5000,
    },
    {
      name: `p99 with ${sse.subscribers.count} subscribers (#7)`,
      target: '< 20 ms',
      value: ms(sse.p99Ms),
      met: sse.p99Ms < 20,
    },
    {
      name: 'each subscriber received every event (#7)',
      target: `${count(sse.subscribers.expected)} finish events each`,
      value: `min ${count(sse.subscribers.min)}, max ${count(sse.subscribers.max)}, ${sse.subscribers.failed} streams failed`,
      met: everyEvent,
    },
    {
      name: 'no errors under load',
      target: '0',
      value: String(app.errors + sse.errors + bare.errors + result.http.appNotFound.errors),
      met: app.errors + sse.errors + bare.errors + result.http.appNotFound.errors === 0,
    },
  ];
}

function storeTargets(store: StoreScaleReport | null): TargetCheck[] {
  if (!store) return [];
  const slowest = <T extends { p50Ms: number }>(rows: T[]) =>
    rows.reduce((max, row) => (row.p50Ms > max.p50Ms ? row : max), rows[0] as T);
  const page = slowest(store.pages);
  const search = slowest(store.search);
  const calls = count(store.calls);
  return [
    {
      name: `slowest page p50 at ${calls} calls (#12)`,
      target: '< 50 ms',
      value: page ? `${ms(page.p50Ms)} (${page.name})` : '–',
      met: store.pages.length > 0 && store.pages.every((row) => row.p50Ms < 50),
    },
    {
      name: `slowest text search p50 at ${calls} (#12)`,
      target: '< 100 ms',
      value: search ? `${ms(search.p50Ms)} (${JSON.stringify(search.query)})` : '–',
      met: store.search.length > 0 && store.search.every((row) => row.p50Ms < 100),
    },
    {
      name: 'bytes per stored call (#12)',
      target: '≤ 600',
      value: count(store.bytesPerCall),
      met: store.bytesPerCall <= 600,
    },
    {
      name: `server RSS at ${calls} calls reported (#12)`,
      target: 'at rest and after the load',
      value: store.server
        ? `${mb(store.server.rssAtRestBytes)} at rest, ${mb(store.server.rssAfterLoadBytes)} after (${store.server.errors} errors)`
        : 'not measured',
      met:
        store.server !== undefined &&
        store.server.rssAtRestBytes !== null &&
        store.server.rssAfterLoadBytes !== null &&
        store.server.errors === 0,
    },
  ];
}

/** The one table `npm run bench` prints. */
export function formatTable(result: BenchResult): string {
  const { machine, settings, executor, http } = result;
  const row = (label: string, rate: string, p50: string, p99: string, errors: string, cpu = '', note = '') =>
    `${label.padEnd(46)}${rate.padStart(9)}${p50.padStart(11)}${p99.padStart(11)}${errors.padStart(8)}${cpu.padStart(14)}   ${note}`.trimEnd();
  const cpu = (n: number | null) => (n === null ? '–' : `${Math.round(n)}%`);
  const httpRow = (label: string, figures: HttpFigures, note = '') =>
    row(
      label,
      count(figures.rps),
      ms(figures.p50Ms),
      ms(figures.p99Ms),
      String(figures.errors),
      `${cpu(figures.serverCpuPercent)} / ${cpu(figures.clientCpuPercent)}`,
      note,
    );
  const sub = http.appWithSubscribers.subscribers;
  const load = (values: number[]) => values.map((v) => v.toFixed(2)).join(' ');
  const lines = [
    `Toolscope bench · ${result.date} · ${machine.cores} cores (${machine.cpu}) · node ${machine.node} · ${machine.platform}`,
    `load average ${load(machine.loadBefore)} before, ${load(machine.loadAfter)} after`,
    `HTTP: ${settings.connections} keep-alive clients in a separate process, one calculator call per request; ` +
      `median of ${settings.runs} runs × ${settings.seconds} s after a ${settings.warmupSeconds} s warm-up; ` +
      'CPU: % of one core used by the server and by the load generator',
    '',
    row('', 'calls/s', 'p50', 'p99', 'errors', 'CPU srv/load'),
    row(
      'executor, in-memory store (no-op tool)',
      '',
      us(executor.inMemory.p50Us),
      us(executor.inMemory.p99Us),
      '',
      '',
      `mean ${us(executor.inMemory.meanUs)}; median of ${executor.inMemory.runs} × ${executor.inMemory.calls.toLocaleString('en-US')} sequential calls`,
    ),
    row(
      'LangChain tool.invoke, same tool (reference)',
      '',
      us(result.langchain.p50Us),
      us(result.langchain.p99Us),
      '',
      '',
      `mean ${us(result.langchain.meanUs)}; @langchain/core, a tool call in, a ToolMessage out, nothing stored`,
    ),
    row(
      'executor, SQLite store (WAL)',
      '',
      us(executor.sqlite.p50Us),
      us(executor.sqlite.p99Us),
      '',
      '',
      `mean ${us(executor.sqlite.meanUs)}; each call answered once its record is committed`,
    ),
    row(
      `executor, SQLite store, ${executor.sqlite.inFlight} calls in flight`,
      count(executor.sqlite.concurrentPerSecond),
      '',
      '',
      '',
      '',
      'counted until the last record is committed',
    ),
    row(
      `batch of ${result.batch.calls} mixed sleeps, max_concurrency ${result.batch.concurrency}`,
      '',
      ms(result.batch.poolMs),
      '',
      '',
      '',
      `ideal schedule ${ms(result.batch.idealMs)}; fixed chunks of ${result.batch.concurrency}: ${ms(result.batch.chunkedMs)} (their ideal ${ms(result.batch.chunkedIdealMs)})`,
    ),
    row(
      'timeout 100 ms: tool ignoring its signal',
      '',
      ms(result.timeouts.toolAnsweredMs),
      '',
      '',
      '',
      `run_shell sleep: answered ${ms(result.timeouts.shellAnsweredMs)}, its processes gone ${ms(result.timeouts.shellGoneAfterMs)} after`,
    ),
    ...storeRows(result.store, row),
    httpRow('bare node:http: POST, JSON.parse, small JSON', http.bare, 'the ceiling'),
    httpRow(
      'app: POST /api/v1/tool-calls',
      http.app,
      `${pct(http.app.rps / http.bare.rps)} of bare; persisted ${count(http.persisted.succeeded)} succeeded / ${count(http.persisted.answered)} answered`,
    ),
    httpRow(
      `app: the same, ${sub.count} SSE subscribers open`,
      http.appWithSubscribers,
      `finish events per subscriber min ${count(sub.min)} max ${count(sub.max)} / ${count(sub.expected)} answered; subscribers' CPU ${cpu(sub.cpuPercent)}`,
    ),
    httpRow(
      `app: GET ${http.appNotFound.path} (404)`,
      http.appNotFound,
      "Next's not-found page: what the framework costs",
    ),
    `app RSS (server process tree): ${mb(http.appRss.atRestBytes)} at rest, ${mb(http.appRss.afterLoadBytes)} after the loads`,
    `app features on: upstream MCP server (server-everything), OpenTelemetry export (${count(http.otlp.requests)} exports, ${mb(http.otlp.bytes)} received), a fault rule, approvals, session ids`,
    ...(
      [
        ['bare', http.bare.firstError],
        ['app', http.app.firstError],
        ['app with subscribers', http.appWithSubscribers.firstError],
        ['subscribers', sub.firstError],
        ['404 route', http.appNotFound.firstError],
      ] as const
    )
      .filter(([, error]) => error !== undefined)
      .map(([label, error]) => `first error, ${label}: ${error}`),
    '',
    'targets',
    ...result.targets.map(
      (target) =>
        `  ${target.met ? 'met   ' : 'MISSED'}  ${target.name.padEnd(44)} ${target.target.padEnd(24)} ${target.value}`,
    ),
  ];
  return lines.join('\n');
}

function storeRows(
  store: StoreScaleReport | null,
  row: (label: string, rate: string, p50: string, p99: string, errors: string, cpu?: string, note?: string) => string,
): string[] {
  if (!store) return ['store at scale: skipped (BENCH_STORE_CALLS=0)'];
  const calls = count(store.calls);
  return [
    `store, ${calls} calls: ${count(store.bytesPerCall)} bytes per call (database ${mb(store.dbBytes)}, WAL ${mb(store.walBytes)}); seeded in ${count(store.seedSeconds)} s; server-side reads of each page, p50/p99 of repeated reads`,
    ...store.pages.map((page) => row(`  ${page.name}`, '', ms(page.p50Ms), ms(page.p99Ms), '', '', page.path)),
    ...store.search.map((search) =>
      row(
        `  search ${JSON.stringify(search.query)}`,
        '',
        ms(search.p50Ms),
        ms(search.p99Ms),
        '',
        '',
        `${count(search.matches)} matches on the first page; over every call`,
      ),
    ),
    storeServerRow(store.server),
    ...(store.server?.firstError === undefined
      ? []
      : [`  first error, server on the store: ${store.server.firstError}`]),
    ...store.notes.map((note) => `  - ${note}`),
  ];
}

/** The built server on the store at scale: its RSS at rest and after the page loads. */
function storeServerRow(server: StoreScaleReport['server']): string {
  if (!server) return '  server RSS: not measured';
  return (
    `  server RSS (built app on a copy of this folder, process tree): ${mb(server.rssAtRestBytes)} at rest (first page served), ` +
    `${mb(server.rssAfterLoadBytes)} after the load (${count(server.requests)} pages and searches over HTTP in ${server.seconds} s, ` +
    `${server.clients} clients, ${server.errors} errors)`
  );
}

/** `bench/results/<date>.json`, with a date that is a valid file name everywhere. */
export function resultFileName(date: string): string {
  return `${date.replace(/\.\d+Z$/, 'Z').replace(/:/g, '-')}.json`;
}
