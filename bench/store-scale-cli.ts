/**
 * `npm run bench:store -- [calls=10000000]`: seeds (or reuses, see `store-seed.ts`) a data folder
 * with that many calls, prints each page's server-side read time, the searches, the bytes per
 * call, the built app's RSS on a copy of the folder at rest and after page loads (building the app
 * if needed; see `store-server.ts`), then the executor's persisted calls/s (100,000 calls, 50 in
 * flight, until committed).
 * Set TOOLSCOPE_BENCH_DATA_DIR to seed elsewhere than bench/tmp/store-<calls>, and
 * TOOLSCOPE_BENCH_SERVED_DIR to copy it elsewhere than bench/tmp/store-<calls>-served.
 */
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { measurePersistedThroughput, measureStoreAtScale } from './store-scale';
import { measureStoreServer } from './store-server';

const calls = Number(process.argv[2] ?? 10_000_000);
const report = await measureStoreAtScale({ calls, progress: (text) => console.log(`… ${text}`) });
const ms = (value: number) => `${value.toFixed(2).padStart(8)} ms`;
console.log(`\n${report.calls.toLocaleString('en')} calls on ${os.cpus().length} cores, Node ${process.version}`);
console.log(
  `seeded in ${report.seedSeconds.toFixed(0)} s; ${report.bytesPerCall.toFixed(0)} bytes per call (db ${report.dbBytes}, wal ${report.walBytes})`,
);
console.log('\npage (server-side reads)                      p50         p99');
for (const page of report.pages)
  console.log(`  ${page.name.padEnd(40)} ${ms(page.p50Ms)} ${ms(page.p99Ms)}   ${page.path}`);
console.log('\ntext search over every call                   p50         p99   matches (first page)');
for (const search of report.search) {
  console.log(
    `  ${JSON.stringify(search.query).padEnd(40)} ${ms(search.p50Ms)} ${ms(search.p99Ms)}   ${search.matches}`,
  );
}
console.log('… building the app if needed (node scripts/build.mjs)');
const build = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: ['ignore', 2, 2] });
if (build.status !== 0) throw new Error('the build failed');
const server = await measureStoreServer({ calls, progress: (text) => console.log(`… ${text}`) });
const mb = (bytes: number | null) => (bytes === null ? '–' : `${(bytes / 2 ** 20).toFixed(0)} MB`);
console.log(
  `\nserver RSS (built app on a copy of the folder, process tree): ${mb(server.rssAtRestBytes)} at rest (first page served), ` +
    `${mb(server.rssAfterLoadBytes)} after ${server.requests} pages and searches in ${server.seconds} s ` +
    `(${server.clients} clients, ${server.errors} errors${server.firstError ? `; first: ${server.firstError}` : ''})`,
);
for (const note of report.notes) console.log(`  - ${note}`);
const throughput = await measurePersistedThroughput({ calls: 100_000, inFlight: 50 });
console.log(
  `\nexecutor, persisted: ${Math.round(throughput.callsPerSecond)} calls/s, p50 ${throughput.p50Us.toFixed(0)} µs per call`,
);
for (const note of throughput.notes) console.log(`  - ${note}`);
