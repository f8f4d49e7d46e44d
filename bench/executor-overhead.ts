/**
 * Per-call overhead of the executor for a no-op tool, with the in-memory store and with the
 * SQLite store (WAL, a temp file):
 * - sequential: p50, p99 and mean over CALLS calls one after another, after a warm-up (the mean
 *   counts the commits a deferring store makes once in a while); with SQLite each
 *   call resolves only once its record is committed, so this is a commit per call;
 * - concurrent: calls/s with IN_FLIGHT calls in flight (default 50, as an eval harness would
 *   send them), counted until the last record is committed (a final `flush`), so calls
 *   finishing in the same turn share one commit.
 * Run: npm run bench  (CALLS=200000 IN_FLIGHT=100 npm run bench for more). The script bundles this file with
 * esbuild first, as the app's own build compiles it: tsx would add a name-keeping wrapper to
 * every function and measure that too.
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

const CALLS = Number(process.env.CALLS || 100_000);
const WARMUP = Math.min(10_000, Math.floor(CALLS / 10));
const IN_FLIGHT = Number(process.env.IN_FLIGHT || 50);

const noop = defineTool({
  name: 'noop',
  description: 'Does nothing',
  sideEffect: 'none',
  inputSchema: z.object({ n: z.number() }),
  execute: () => ({ ok: true }),
});

const call = { id: 'call_bench', name: 'noop', arguments: '{"n":1}' };

async function measure(label: string, store: TraceStore) {
  const executor = createExecutor({ registry: createRegistry([noop]), sink: store });
  for (let i = 0; i < WARMUP; i++) await executor.execute(call);
  const samples = new Float64Array(CALLS);
  for (let i = 0; i < CALLS; i++) {
    const start = process.hrtime.bigint();
    const result = await executor.execute(call);
    samples[i] = Number(process.hrtime.bigint() - start) / 1000;
    if (!result.success) throw new Error(`bench call failed: ${result.error?.message}`);
  }
  const mean = samples.reduce((sum, sample) => sum + sample, 0) / CALLS;
  samples.sort();
  const at = (p: number) => samples[Math.min(CALLS - 1, Math.floor(p * CALLS))] ?? Number.NaN;
  console.log(
    `${label.padEnd(22)} sequential  p50 ${at(0.5).toFixed(1).padStart(6)} µs   p99 ${at(0.99).toFixed(1).padStart(7)} µs   mean ${mean.toFixed(1).padStart(6)} µs   (${CALLS} calls)`,
  );
  await measureConcurrent(label, store, executor);
}

/** CALLS calls, IN_FLIGHT at a time; the clock stops once every record is committed. */
async function measureConcurrent(label: string, store: TraceStore, executor: ReturnType<typeof createExecutor>) {
  let next = 0;
  const worker = async () => {
    while (next < CALLS) {
      next += 1;
      const result = await executor.execute(call);
      if (!result.success) throw new Error(`bench call failed: ${result.error?.message}`);
    }
  };
  const start = process.hrtime.bigint();
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  store.flush();
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  console.log(
    `${label.padEnd(22)} concurrent  ${Math.round(CALLS / seconds)
      .toString()
      .padStart(7)} calls/s with ${IN_FLIGHT} in flight, all committed   (${CALLS} calls)`,
  );
}

async function main() {
  console.log(`executor overhead per call, no-op tool, node ${process.version}`);
  // Bounded, as a long-running in-memory store would be: the bench measures the executor, not a growing heap.
  await measure('in-memory store', createMemoryTraceStore({ capacity: 10_000 }));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-bench-'));
  try {
    const db = openDatabase(path.join(dir, 'bench.db'));
    const store = createSqliteTraceStore({ db, vault: createVault({ dir }) });
    await measure('SQLite store (WAL)', store);
    store.close();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
