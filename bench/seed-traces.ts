/**
 * Fills a data folder with N realistic recorded calls (default 1,000,000; see `store-seed.ts`),
 * for measuring the pages and the API on a large database:
 *   npx tsx bench/seed-traces.ts .toolscope-big 1000000
 *   TOOLSCOPE_DATA_DIR=.toolscope-big npm start
 * The calls end on SEED_END (2026-11-01 12:00 UTC): the time ranges of the pages ("last hour")
 * count from now, so pick a from/to around that date to see them.
 */
import path from 'node:path';
import { seedStore } from './store-seed';

const dir = path.resolve(process.argv[2] ?? '.toolscope-big');
const total = Number(process.argv[3] ?? 1_000_000);
const seconds = seedStore({ dir, calls: total, progress: console.log });
console.log(`seeded ${total} calls into ${dir} in ${seconds.toFixed(1)} s`);
