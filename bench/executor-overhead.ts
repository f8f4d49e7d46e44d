/**
 * Per-call overhead of the executor for a no-op tool, with the in-memory store and with the
 * SQLite store (WAL, a temp file): p50 and p99 over `calls` sequential calls after a warm-up,
 * the median of `runs` such runs. `npm run bench` bundles this with esbuild first, as the app's
 * own build compiles it: tsx would add a name-keeping wrapper to every function and measure that too.
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
  calls: number;
  runs: number;
}

const noop = defineTool({
  name: 'noop',
  description: 'Does nothing',
  sideEffect: 'none',
  inputSchema: z.object({ n: z.number() }),
  execute: () => ({ ok: true }),
});

async function measureOnce(store: TraceStore, calls: number) {
  const executor = createExecutor({ registry: createRegistry([noop]), sink: store });
  const call = { id: 'call_bench', name: 'noop', arguments: '{"n":1}' };
  const warmup = Math.min(10_000, Math.floor(calls / 10));
  for (let i = 0; i < warmup; i++) await executor.execute(call);
  const samples = new Float64Array(calls);
  for (let i = 0; i < calls; i++) {
    const start = process.hrtime.bigint();
    const result = await executor.execute(call);
    samples[i] = Number(process.hrtime.bigint() - start) / 1000;
    if (!result.success) throw new Error(`bench call failed: ${result.error?.message}`);
  }
  samples.sort();
  return { p50: percentile(samples, 0.5), p99: percentile(samples, 0.99) };
}

async function measure(openStore: () => { store: TraceStore; close(): void }, calls: number, runs: number) {
  const figures: { p50: number; p99: number }[] = [];
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
