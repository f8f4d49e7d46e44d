/**
 * `npm run bench`: every figure of issues #7 and #12 this bench measures, side by side in one run,
 * printed as one table (progress goes to stderr) and written to `bench/results/<date>.json`.
 * 1. Executor overhead per call, in-memory and SQLite store (in this process, before any server).
 * 2. Build the app if needed (`node scripts/build.mjs`).
 * 3. A bare node:http server (child process) under the load: the ceiling.
 * 4. The app, started as `npm start` starts it (own port, fresh data folder), under the same load
 *    on POST /api/v1/tool-calls, then on a 404 route, then again with SSE subscribers open (their
 *    own child process), each counting the finish events it received.
 * 5. Stop the app by its pid, count the stored calls read-only against the answered ones.
 * The store at scale is measured before the build (the store's reads, in this process), then, once
 * built, the app on a copy of its seeded folder (`store-server.ts`: RSS at rest and after page loads).
 * The load generator always runs in a child process of its own, never beside a server.
 * Settings: BENCH_CONNECTIONS=50 BENCH_SECONDS=5 BENCH_RUNS=3 BENCH_WARMUP_SECONDS=3
 * BENCH_SUBSCRIBERS=200 BENCH_EXECUTOR_CALLS=100000 BENCH_EXECUTOR_RUNS=3 BENCH_STORE_CALLS=10000000
 * (0 skips the store at scale; TOOLSCOPE_BENCH_DATA_DIR keeps its seeded folder elsewhere).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { countStoredCalls, startApp } from './app-server';
import { forkScript, nextMessage } from './child';
import { measureExecutorOverhead } from './executor-overhead';
import { createFaultRule, featuresConfig, startOtlpReceiver, waitForMcp } from './features';
import type { LoadOptions, LoadReport } from './load-generator';
import { meterCpu, processTreeRssBytes } from './process-usage';
import { measureBatchSchedule, measureLangchainInvoke, measureTimeouts } from './reference-rows';
import { type BenchResult, checkTargets, formatTable, resultFileName, summarizeLoad } from './results';
import type { SubscriberCounts } from './sse-subscribers';
import { measureStoreAtScale } from './store-scale';
import { measureStoreServer } from './store-server';

const setting = (name: string, fallback: number) => Number(process.env[name] || fallback);
const settings = {
  connections: setting('BENCH_CONNECTIONS', 50),
  warmupSeconds: setting('BENCH_WARMUP_SECONDS', 3),
  seconds: setting('BENCH_SECONDS', 5),
  runs: setting('BENCH_RUNS', 3),
  subscribers: setting('BENCH_SUBSCRIBERS', 200),
  executorCalls: setting('BENCH_EXECUTOR_CALLS', 100_000),
  executorRuns: setting('BENCH_EXECUTOR_RUNS', 3),
  storeCalls: setting('BENCH_STORE_CALLS', 10_000_000),
  body: JSON.stringify({
    session_id: 'bench',
    // A fresh tool call id per request: a repeated one is answered from the store (at most once).
    tool_calls: [{ id: 'c{n}', type: 'function', function: { name: 'calculator', arguments: '{"expression":"2+2"}' } }],
  }),
};
const NOT_FOUND_PATH = '/bench-not-found';
const root = process.cwd();
const progress = (text: string) => console.error(`[bench] ${text}`);

/** Runs the load generator in a child process against `serverPid`'s server, metering the server's CPU. */
async function load(
  serverPid: number,
  options: Omit<LoadOptions, 'connections' | 'warmupSeconds' | 'seconds' | 'runs'>,
) {
  const { connections, warmupSeconds, seconds, runs } = settings;
  const server = meterCpu(serverPid);
  const child = forkScript('./load-generator.mjs', { ...options, connections, warmupSeconds, seconds, runs });
  const timeoutMs = (warmupSeconds + seconds * runs) * 1000 + 60_000;
  const { report } = await nextMessage<{ report: LoadReport }>(child, 'report', timeoutMs);
  return summarizeLoad(report, { server: server.stop(), client: report.cpuPercent });
}

const postCalls = (origin: string) =>
  ({
    url: `${origin}/api/v1/tool-calls`,
    method: 'POST',
    body: settings.body,
    expectStatus: 200,
    expectBody: '"success":true',
  }) as const;

async function measureBare() {
  const server = forkScript('./bare-server.mjs', {});
  try {
    const { port } = await nextMessage<{ port: number }>(server, 'listening', 10_000);
    return await load(server.pid ?? -1, { ...postCalls(`http://127.0.0.1:${port}`), expectBody: '"ok":true' });
  } finally {
    server.kill('SIGTERM');
  }
}

/** Asks the subscribers for their counts until every one has `expected` or the counts stop moving. */
async function settledCounts(subscribers: ReturnType<typeof forkScript>, expected: number) {
  let last = '';
  for (let i = 0; i < 40; i++) {
    subscribers.send({ type: 'report' });
    const { counts } = await nextMessage<{ counts: SubscriberCounts }>(subscribers, 'counts', 300_000);
    const key = counts.finishes.join(',');
    if (Math.min(...counts.finishes) >= expected || key === last) return counts;
    last = key;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error('the subscribers never settled');
}

async function measureApp() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-bench-app-'));
  const logFile = path.join(root, 'bench', 'tmp', 'app.log');
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  fs.writeFileSync(logFile, '');
  progress(`starting the app (scripts/start.mjs, data in ${dataDir}, log in bench/tmp/app.log)`);
  const otlp = await startOtlpReceiver();
  const app = await startApp({
    root,
    dataDir,
    logFile,
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.endpoint },
    config: featuresConfig(root),
  });
  try {
    progress('features on: upstream MCP server, OpenTelemetry export, a fault rule, approvals, sessions');
    await waitForMcp(app.origin);
    await createFaultRule(app.origin);
    const rssAtRest = processTreeRssBytes(app.pid);
    progress(`app pid ${app.pid} at ${app.origin}: POST /api/v1/tool-calls`);
    const calls = await load(app.pid, postCalls(app.origin));
    progress(`GET ${NOT_FOUND_PATH}`);
    const notFound = await load(app.pid, { url: `${app.origin}${NOT_FOUND_PATH}`, method: 'GET', expectStatus: 404 });
    progress(`${settings.subscribers} subscribers on /api/v1/events, then POST /api/v1/tool-calls again`);
    const subscribers = forkScript('./sse-subscribers.mjs', {
      url: `${app.origin}/api/v1/events`,
      count: settings.subscribers,
    });
    let withSubscribers: Awaited<ReturnType<typeof load>>;
    let counts: SubscriberCounts;
    let subscribersCpuPercent: number | null;
    try {
      await nextMessage(subscribers, 'ready', 60_000);
      const subscribersCpu = meterCpu(subscribers.pid ?? -1);
      withSubscribers = await load(app.pid, postCalls(app.origin));
      subscribersCpuPercent = subscribersCpu.stop();
      counts = await settledCounts(subscribers, withSubscribers.answered);
    } finally {
      subscribers.disconnect();
    }
    const rssAfterLoad = processTreeRssBytes(app.pid);
    progress(`stopping the app (SIGTERM to pid ${app.pid})`);
    const stopped = await app.stop();
    if (stopped.killed) progress('the app did not stop within 20 s and was killed');
    const stored = countStoredCalls(dataDir);
    return {
      app: calls,
      appNotFound: { ...notFound, path: NOT_FOUND_PATH },
      appWithSubscribers: {
        ...withSubscribers,
        subscribers: {
          count: settings.subscribers,
          expected: withSubscribers.answered,
          min: Math.min(...counts.finishes),
          max: Math.max(...counts.finishes),
          failed: counts.failed,
          cpuPercent: subscribersCpuPercent,
          ...(counts.firstError === undefined ? {} : { firstError: counts.firstError }),
        },
      },
      persisted: { answered: calls.answered + withSubscribers.answered, ...stored },
      appRss: { atRestBytes: rssAtRest, afterLoadBytes: rssAfterLoad },
      otlp: otlp.received(),
    };
  } finally {
    await app.stop();
    await otlp.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const date = new Date().toISOString();
  const loadBefore = os.loadavg();
  progress(`executor overhead: ${settings.executorRuns} × ${settings.executorCalls} calls per store`);
  const executor = await measureExecutorOverhead(settings.executorCalls, settings.executorRuns);
  progress(`LangChain tool.invoke: ${settings.executorRuns} × ${settings.executorCalls} calls`);
  const langchain = await measureLangchainInvoke(settings.executorCalls, settings.executorRuns);
  progress('a batch of mixed durations, pool against fixed chunks; timeouts');
  const batch = await measureBatchSchedule(5);
  const timeouts = await measureTimeouts(5);
  const { storeCalls } = settings;
  progress(`the store at ${storeCalls} calls (seeded once, then reused while the schema is the same)`);
  const store = storeCalls > 0 ? await measureStoreAtScale({ calls: storeCalls, progress }) : null;
  progress('building the app if needed (node scripts/build.mjs)');
  const build = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: root, stdio: ['ignore', 2, 2] });
  if (build.status !== 0) throw new Error('the build failed');
  if (store) {
    progress(`the built app on the store at ${storeCalls} calls: RSS at rest and after page loads`);
    store.server = await measureStoreServer({ calls: storeCalls, root, progress });
  }
  progress('bare node:http server');
  const bare = await measureBare();
  const { persisted, ...app } = await measureApp();
  const cpus = os.cpus();
  const partial: Omit<BenchResult, 'targets'> = {
    version: 1,
    date,
    machine: {
      cores: cpus.length,
      cpu: cpus[0]?.model.trim() ?? 'unknown',
      node: process.version,
      platform: `${os.platform()} ${os.release()}`,
      loadBefore,
      loadAfter: os.loadavg(),
    },
    settings,
    executor,
    langchain,
    batch,
    timeouts,
    store,
    http: { bare, ...app, persisted },
  };
  const result: BenchResult = { ...partial, targets: checkTargets(partial) };
  console.log(formatTable(result));
  const dir = path.join(root, 'bench', 'results');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, resultFileName(date));
  fs.writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`\nwritten to ${path.relative(root, file)}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
