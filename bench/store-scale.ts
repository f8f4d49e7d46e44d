/**
 * The store at scale: a data folder seeded with N calls (see `store-seed.ts`, cached across runs
 * while the migrations and the generator are unchanged), then each page's server-side reads
 * timed on it, and the text search over every call.
 *
 * Measured on the store's own queries, exactly the calls each page's server code makes
 * (`store.list` and `store.tools()` for the traces list, `store.get` + `traceJson` +
 * `adjacent` + `replays` + the assistant message for the trace view, `sessionDetail` for the
 * session view, `listSessions` for the sessions list, `allStatsJson` for the tools page), in this
 * process, after one warm-up read each; React rendering and HTTP are not counted.
 */

import fs from 'node:fs';
import path from 'node:path';
import { traceJson } from '../lib/api/serialize';
import { sessionDetail } from '../lib/api/sessions';
import { allStatsJson } from '../lib/api/stats';
import { createApprovalQueue } from '../lib/approvals/approval-queue';
import { assistantMessageOf } from '../lib/calls/assistant-message';
import { openDatabase } from '../lib/db/open-database';
import { createSqliteToolSeries } from '../lib/db/sqlite-tool-series';
import { createSqliteTraceStore } from '../lib/db/sqlite-trace-store';
import type { TraceQuery } from '../lib/db/trace-store';
import { createVault } from '../lib/db/vault';
import { createExecutor } from '../lib/executor/executor';
import { createRegistry } from '../lib/executor/registry';
import type { Toolscope } from '../lib/server/create-toolscope';
import { percentile } from './percentile';
import { ensureSeeded, SEED_END, seedCall } from './store-seed';
import type { StoreServerFigures } from './store-server';

export { measurePersistedThroughput } from './persisted-throughput';

export interface StoreScaleReport {
  calls: number;
  /** Seconds the seeding took (when it was cached, the seconds it took then). */
  seedSeconds: number;
  /** Database and WAL bytes over the calls: everything, indexes and the search index included. */
  bytesPerCall: number;
  dbBytes: number;
  walBytes: number;
  pages: { name: string; path: string; p50Ms: number; p99Ms: number }[];
  search: { query: string; p50Ms: number; p99Ms: number; matches: number }[];
  /** The built server started on (a copy of) the seeded folder: its resident memory at rest and after page loads. */
  server?: StoreServerFigures;
  notes: string[];
}

/**
 * The text searches timed at `calls` calls: rare and common words, an error message, a path, ids,
 * two common words rarely side by side, nothing.
 */
export function searchQueries(calls: number): string[] {
  const middle = seedCall(Math.floor(calls / 2), calls);
  const oldest = seedCall(0, calls);
  return [
    'api',
    'ETIMEDOUT',
    'payment',
    'AssertionError: expected 42',
    'src/ledger/refund',
    'queue worker',
    middle.toolCallId,
    oldest.id.slice(-12),
    'no such text anywhere',
  ];
}

/** Reads per page and per search: the p50 and p99 of these. */
const SAMPLES = 25;

function time(samples: number, read: () => unknown): { p50Ms: number; p99Ms: number } {
  read();
  const times = new Float64Array(samples);
  for (let i = 0; i < samples; i++) {
    const start = performance.now();
    read();
    times[i] = performance.now() - start;
  }
  times.sort();
  return { p50Ms: percentile(times, 0.5), p99Ms: percentile(times, 0.99) };
}

/** The part of the database file each table and index takes, per call (SQLite's dbstat). */
function bytesByPart(store: { db: ReturnType<typeof openDatabase> }, calls: number): string {
  try {
    const rows = store.db
      .prepare('SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC LIMIT 10')
      .all() as { name: string; bytes: number }[];
    return rows.map((row) => `${row.name} ${(row.bytes / calls).toFixed(0)}`).join(', ');
  } catch {
    return 'dbstat is not available in this SQLite build';
  }
}

/**
 * Seeds (or reuses) `calls` calls, then times every page's reads and the searches.
 * @example const report = await measureStoreAtScale({ calls: 10_000_000, progress: console.log })
 */
export async function measureStoreAtScale(options: {
  calls: number;
  progress: (text: string) => void;
}): Promise<StoreScaleReport> {
  const { calls, progress } = options;
  const seeded = ensureSeeded({ calls, progress });
  const file = path.join(seeded.dir, 'toolscope.db');
  const db = openDatabase(file);
  const store = createSqliteTraceStore({ db, vault: createVault({ dir: seeded.dir }) });
  try {
    progress(`measuring ${calls} calls in ${seeded.dir}`);
    const series = createSqliteToolSeries(db);
    const executor = createExecutor({ registry: createRegistry([]), sink: store });
    const toolscope = { store, series, executor, approvals: createApprovalQueue() } as unknown as Toolscope;
    // Calls of known shape: the newest, one in the middle (its session and id), the oldest.
    const middle = seedCall(Math.floor(calls / 2), calls);
    const middleId = store.list({ sessionId: middle.sessionId ?? '', limit: 1 }).items[0]?.id ?? middle.id;
    const oldest = seedCall(0, calls);
    const now = SEED_END;
    const list = (query: TraceQuery) => () => {
      store.list(query);
      store.tools();
    };
    const pages: StoreScaleReport['pages'] = [];
    const page = (name: string, pagePath: string, read: () => unknown) => {
      pages.push({ name, path: pagePath, ...time(SAMPLES, read) });
    };
    page('traces list', '/', list({ limit: 50 }));
    page('traces list, second page', '/?cursor=…', () => {
      const first = store.list({ limit: 50 });
      store.list({ limit: 50, cursor: first.nextCursor ?? undefined });
    });
    page('filtered by tool', '/?tool=write_file', list({ tool: 'write_file', limit: 50 }));
    page('filtered by status (failed)', '/?status=failed', list({ status: 'failed', limit: 50 }));
    page('filtered by status (running)', '/?status=running', list({ status: 'running', limit: 50 }));
    page(
      'filtered by session',
      `/?session=${middle.sessionId}`,
      list({ sessionId: middle.sessionId ?? '', limit: 50 }),
    );
    page('last hour', '/?range=1h', list({ from: now - 3_600_000, limit: 50 }));
    page(
      'an hour in the middle',
      '/?from=…&to=…',
      list({ from: middle.createdAt, to: middle.createdAt + 3_600_000, limit: 50 }),
    );
    page(
      'tool in an hour long ago',
      '/?tool=read_file&from=…&to=…',
      list({ tool: 'read_file', from: oldest.createdAt, to: oldest.createdAt + 3_600_000, limit: 50 }),
    );
    const traceView = (id: string) => () => {
      const trace = store.get(id);
      if (!trace) throw new Error(`no trace ${id}`);
      traceJson(trace);
      assistantMessageOf(trace, store);
      store.replays(id);
      store.adjacent(id);
    };
    page('trace view', `/traces/${middleId}`, traceView(middleId));
    page('session view', `/sessions/${middle.sessionId}`, () => {
      if (!sessionDetail(toolscope, middle.sessionId ?? '', now)) throw new Error('no session');
    });
    page('sessions list', '/sessions', () => store.listSessions({ limit: 50 }));
    page('tools page (day)', '/tools', () => allStatsJson(toolscope, 'day', now));
    page('tools page (week)', '/tools?range=week', () => allStatsJson(toolscope, 'week', now));

    const search: StoreScaleReport['search'] = [];
    const searchFor = (query: string) => {
      const matches = store.list({ text: query, limit: 50 }).items.length;
      search.push({ query, ...time(SAMPLES, () => store.list({ text: query, limit: 50 })), matches });
    };
    for (const query of searchQueries(calls)) searchFor(query);
    const dbBytes = fs.statSync(file).size;
    const walBytes = fs.statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    return {
      calls,
      seedSeconds: seeded.seedSeconds,
      bytesPerCall: (dbBytes + walBytes) / calls,
      dbBytes,
      walBytes,
      pages,
      search,
      notes: [
        `seeded by bench/store-seed.ts${seeded.cached ? ' (cached from an earlier run)' : ''}: 8 tools, sessions of 40 calls, 90 % succeeded, ids as the executor makes them`,
        'server-side reads timed on the store in this process (the calls each page makes), not over HTTP; p50/p99 of 25 reads after a warm-up',
        'search: the first page of 50 (matches counts that page), over every call; the index is filled by an indexer off the write path',
        `bytes per call by part: ${bytesByPart({ db }, calls)}`,
      ],
    };
  } finally {
    store.close();
  }
}
