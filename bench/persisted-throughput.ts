/**
 * Executor calls per second with the SQLite store, many calls in flight, counted until the last
 * record is committed to the WAL (`store.flush()` returns once it is).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../lib/db/open-database';
import { createSqliteTraceStore } from '../lib/db/sqlite-trace-store';
import { createVault } from '../lib/db/vault';
import { createExecutor } from '../lib/executor/executor';
import { createRegistry } from '../lib/executor/registry';
import { noop } from './executor-overhead';
import { percentile } from './percentile';

export interface PersistedThroughput {
  callsPerSecond: number;
  /** Median time of one call from `execute` to its resolved result (committed), in µs. */
  p50Us: number;
  notes: string[];
}

/**
 * Runs `calls` no-op calls through the executor with the SQLite store of a fresh temp folder,
 * `inFlight` at a time, after a warm-up of a tenth of them; the clock stops once every record
 * is committed. The folder is removed afterwards.
 * @example await measurePersistedThroughput({ calls: 100_000, inFlight: 50 })
 */
export async function measurePersistedThroughput(options: {
  calls: number;
  inFlight: number;
}): Promise<PersistedThroughput> {
  const { calls, inFlight } = options;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-throughput-'));
  const db = openDatabase(path.join(dir, 'toolscope.db'));
  const store = createSqliteTraceStore({ db, vault: createVault({ dir }) });
  try {
    const executor = createExecutor({ registry: createRegistry([noop]), sink: store });
    const call = { id: 'call_bench', name: 'noop', arguments: '{"n":1}' };
    const run = async (count: number, samples: Float64Array | null) => {
      let next = 0;
      const worker = async () => {
        while (next < count) {
          const index = next++;
          const start = samples ? performance.now() : 0;
          const result = await executor.execute(call);
          if (samples) samples[index] = (performance.now() - start) * 1000;
          if (!result.success) throw new Error(`bench call failed: ${result.error?.message}`);
        }
      };
      await Promise.all(Array.from({ length: inFlight }, worker));
      store.flush();
    };
    await run(Math.max(1000, Math.floor(calls / 10)), null);
    const samples = new Float64Array(calls);
    const start = performance.now();
    await run(calls, samples);
    const seconds = (performance.now() - start) / 1000;
    samples.sort();
    const walBytes = fs.statSync(path.join(dir, 'toolscope.db-wal'), { throwIfNoEntry: false })?.size ?? 0;
    return {
      callsPerSecond: calls / seconds,
      p50Us: percentile(samples, 0.5),
      notes: [
        `${calls} no-op calls, ${inFlight} in flight, through the executor into a fresh SQLite file (WAL, synchronous=NORMAL)`,
        `counted until store.flush() returned: the last record committed to the WAL (${Math.round(walBytes / 1024)} KiB WAL at the end)`,
      ],
    };
  } finally {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
