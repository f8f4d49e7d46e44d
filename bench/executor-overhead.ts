/**
 * Per-call overhead of the executor for a no-op tool, with the in-memory store and with the
 * SQLite store (WAL, a temp file), each figure the median of `runs` runs on a fresh store:
 * - sequential: p50, p99 and mean over `calls` calls one after another, after a warm-up; with
 *   SQLite each call resolves only once its record is committed, so this is a commit per call
 *   (the mean also counts what a p50 hides: the occasional checkpoint);
 * - concurrent: calls/s with IN_FLIGHT calls in flight (50, as an eval harness sends them),
 *   counted until the last record is committed, so calls finishing in one turn share a commit.
 * `npm run bench` bundles this with esbuild first, as the app's own build compiles it: tsx would
 * add a name-keeping wrapper to every function and measure that too.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { createMemoryTraceStore } from '../lib/db/memory-trace-store';
import { openDatabase } from '../lib/db/open-database';
import { createSqliteTraceStore } from '../lib/db/sqlite-trace-store';
import type { TraceStore } from '../lib/db/trace-store';
import { createVault } from '../lib/db/vault';
import { defineTool } from '../lib/executor/define-tool';
import { createExecutor } from '../lib/executor/executor';
import { createRegistry } from '../lib/executor/registry';
import { median, percentile } from './percentile';

export interface OverheadFigures {
  p50Us: number;
  p99Us: number;
  meanUs: number;
  /** Calls/s with IN_FLIGHT calls in flight, until every record is committed. */
  concurrentPerSecond: number;
  inFlight: number;
  calls: number;
  runs: number;
}

const IN_FLIGHT = 50;
const call = { id: 'call_bench', name: 'noop', arguments: '{"n":1}' };

/** The bench's no-op tool: one number in, nothing done. */
export const noop = defineTool({
  name: 'noop',
  description: 'Does nothing',
  sideEffect: 'none',
  inputSchema: z.object({ n: z.number() }),
  execute: () => ({ ok: true }),
});

async function measureOnce(store: TraceStore, calls: number) {
  const executor = createExecutor({ registry: createRegistry([noop]), sink: store });
  const warmup = Math.min(10_000, Math.floor(calls / 10));
  for (let i = 0; i < warmup; i++) await executor.execute(call);
  const samples = new Float64Array(calls);
  for (let i = 0; i < calls; i++) {
    const start = process.hrtime.bigint();
    const result = await executor.execute(call);
    samples[i] = Number(process.hrtime.bigint() - start) / 1000;
    if (!result.success) throw new Error(`bench call failed: ${result.error?.message}`);
  }
  const mean = samples.reduce((sum, sample) => sum + sample, 0) / calls;
  samples.sort();
  return {
    p50: percentile(samples, 0.5),
    p99: percentile(samples, 0.99),
    mean,
    perSecond: await measureConcurrent(store, executor, calls),
  };
}

/** `calls` calls, IN_FLIGHT at a time; the clock stops once every record is committed. */
async function measureConcurrent(store: TraceStore, executor: ReturnType<typeof createExecutor>, calls: number) {
  let next = 0;
  const worker = async () => {
    while (next < calls) {
      next += 1;
      const result = await executor.execute(call);
      if (!result.success) throw new Error(`bench call failed: ${result.error?.message}`);
    }
  };
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  store.flush();
  return calls / (Number(process.hrtime.bigint() - start) / 1e9);
}

async function measure(
  openStore: () => { store: TraceStore; close(): void },
  calls: number,
  runs: number,
): Promise<OverheadFigures> {
  const figures: Awaited<ReturnType<typeof measureOnce>>[] = [];
  for (let i = 0; i < runs; i++) {
    const { store, close } = openStore();
    try {
      figures.push(await measureOnce(store, calls));
    } finally {
      close();
    }
  }
  return {
    p50Us: median(figures.map((f) => f.p50)),
    p99Us: median(figures.map((f) => f.p99)),
    meanUs: median(figures.map((f) => f.mean)),
    concurrentPerSecond: median(figures.map((f) => f.perSecond)),
    inFlight: IN_FLIGHT,
    calls,
    runs,
  };
}

/** Measures both stores, each run on a fresh store (the SQLite one in a temp folder, removed after). */
export async function measureExecutorOverhead(calls: number, runs: number) {
  // Bounded, as a long-running in-memory store would be: the bench measures the executor, not a growing heap.
  const inMemory = await measure(
    () => ({ store: createMemoryTraceStore({ capacity: 10_000 }), close() {} }),
    calls,
    runs,
  );
  const sqlite = await measure(
    () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-bench-'));
      const store = createSqliteTraceStore({
        db: openDatabase(path.join(dir, 'bench.db')),
        vault: createVault({ dir }),
      });
      return {
        store,
        close() {
          store.close();
          fs.rmSync(dir, { recursive: true, force: true });
        },
      };
    },
    calls,
    runs,
  );
  return { inMemory, sqlite };
}
