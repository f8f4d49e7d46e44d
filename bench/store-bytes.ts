/**
 * Where a stored call's bytes go: seeds N calls (default 200,000) with `store-seed.ts` into a temp
 * folder and prints the database and WAL bytes per call, each table and index per call (SQLite's
 * dbstat) and the average stored length of each `tool_calls` column. With `--throughput`, also
 * the persisted calls/s of `measurePersistedThroughput` (100,000 calls, 50 in flight).
 *   nice -n 19 npx tsx bench/store-bytes.ts 200000 [--throughput]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { measurePersistedThroughput } from './persisted-throughput';
import { seedStore } from './store-seed';

/** The report's figures: bytes per call in all, per table or index, and per column. */
export interface StoreBytes {
  calls: number;
  bytesPerCall: number;
  parts: { name: string; bytesPerCall: number }[];
  columns: { name: string; averageBytes: number }[];
}

/** Seeds `calls` calls into a fresh temp folder and measures where their bytes go; the folder is removed. */
export function measureStoreBytes(calls: number): StoreBytes {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-bytes-'));
  try {
    seedStore({ dir, calls });
    const file = path.join(dir, 'toolscope.db');
    const size = (name: string) => fs.statSync(name, { throwIfNoEntry: false })?.size ?? 0;
    const bytesPerCall = (size(file) + size(`${file}-wal`)) / calls;
    const db = new Database(file, { readonly: true });
    try {
      const parts = (
        db.prepare('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC').all() as {
          name: string;
          bytes: number;
        }[]
      ).map((row) => ({ name: row.name, bytesPerCall: row.bytes / calls }));
      const names = (db.prepare("SELECT name FROM pragma_table_info('tool_calls')").pluck().all() as string[]).filter(
        (name) => name !== 'seq',
      );
      const averages = db
        .prepare(
          `SELECT ${names.map((name) => `avg(coalesce(length(CAST(\`${name}\` AS BLOB)), 0))`).join(', ')} FROM tool_calls`,
        )
        .raw()
        .get() as number[];
      const columns = names
        .map((name, index) => ({ name, averageBytes: averages[index] ?? 0 }))
        .sort((a, b) => b.averageBytes - a.averageBytes);
      return { calls, bytesPerCall, parts, columns };
    } finally {
      db.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const calls = Number(process.argv.find((arg) => /^\d+$/.test(arg)) ?? 200_000);
  const report = measureStoreBytes(calls);
  console.log(`${report.calls} calls: ${report.bytesPerCall.toFixed(1)} bytes per call (database + WAL)`);
  console.log('by part (dbstat, bytes per call):');
  for (const part of report.parts) console.log(`  ${part.name.padEnd(36)} ${part.bytesPerCall.toFixed(1)}`);
  console.log('tool_calls columns (average stored bytes; integers as their text length):');
  for (const column of report.columns) console.log(`  ${column.name.padEnd(36)} ${column.averageBytes.toFixed(1)}`);
  if (process.argv.includes('--throughput')) {
    const runs = [];
    for (let run = 0; run < 3; run++) runs.push(await measurePersistedThroughput({ calls: 100_000, inFlight: 50 }));
    const rates = runs.map((run) => Math.round(run.callsPerSecond)).sort((a, b) => a - b);
    console.log(`persisted calls/s (3 runs of 100,000, 50 in flight): ${rates.join(', ')}; median ${rates[1]}`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename ?? '')) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
