/**
 * Measures the SQLite trace store: the write path the executor pays per call, then list and
 * toolStats over a large table with each query's plan.
 *   npm run bench:store -- [rows=1000000]
 * Everything lives in a temporary folder that is removed at the end.
 */
import path from 'node:path';
import { resolveListFilter } from '../lib/db/list-query';
import { createMemoryTraceStore } from '../lib/db/memory-trace-store';
import { listTracesSql } from '../lib/db/sqlite-list-traces';
import { createSqliteTraceStore } from '../lib/db/sqlite-trace-store';
import { createTempDataDir, openTestDatabase } from '../lib/db/test-database';
import type { TraceQuery, TraceStore } from '../lib/db/trace-store';
import { createVault } from '../lib/db/vault';
import type { TraceRecord } from '../lib/executor/types';

const rows = Number(process.argv[2] ?? 1_000_000);
const temp = createTempDataDir('toolscope-bench-');
const T0 = Date.UTC(2025, 0, 1);
const STEP_MS = 100;

function median(samples: number[], q = 0.5): string {
  const sorted = [...samples].sort((a, b) => a - b);
  return `${((sorted[Math.floor(q * (sorted.length - 1))] ?? 0) * 1000).toFixed(1)} µs`;
}

function call(i: number): TraceRecord {
  return {
    id: `bench-${i}`,
    toolCallId: `call_${i}`,
    sessionId: 'bench',
    actor: 'api',
    tool: 'read_file',
    status: 'running',
    sideEffect: 'read',
    arguments: { path: `docs/file-${i}.md` },
    rawArguments: `{"path":"docs/file-${i}.md"}`,
    editedArguments: null,
    rawEditedArguments: null,
    approval: null,
    replayOf: null,
    batchId: null,
    servedFrom: null,
    createdAt: Date.now(),
    finishedAt: null,
    latencyMs: null,
    stages: [{ name: 'parse', status: 'ok', startedAt: 0, durationMs: 0.01, detail: 'JSON string' }],
    attempts: [],
    output: null,
    stdout: null,
    stderr: null,
    exitCode: null,
    error: null,
    modelMessage: null,
    modelTruncation: null,
    flags: { retried: false, fellBack: false, truncated: false, faulted: false, replayed: false },
    metadata: {},
  };
}

function measureWrites(name: string, store: TraceStore, count = 20_000): void {
  const total: number[] = [];
  for (let i = 0; i < count; i++) {
    const record = call(i);
    const start = performance.now();
    store.begin(record);
    record.status = 'succeeded';
    record.finishedAt = Date.now();
    record.latencyMs = 1;
    record.output = { text: 'x'.repeat(200) };
    store.finish(record);
    if (i >= count / 10) total.push(performance.now() - start);
  }
  console.log(`${name}: begin + finish p50 ${median(total)}, p95 ${median(total, 0.95)}, p99 ${median(total, 0.99)}`);
}

const writeDir = path.join(temp.dir, 'writes');
measureWrites(
  'sqlite',
  createSqliteTraceStore({ db: openTestDatabase(writeDir), vault: createVault({ dir: writeDir }) }),
);
measureWrites('memory', createMemoryTraceStore());

console.log(`\nfilling ${rows} rows...`);
const db = openTestDatabase(temp.dir);
const insert = db.prepare(`INSERT INTO tool_calls (id, tool_call_id, session_id, actor, tool, status, side_effect,
  arguments, sealed_arguments, created_at, finished_at, latency_ms, stages, attempts, attempt_count, metadata)
  VALUES (?, ?, ?, 'api', ?, ?, 'read', ?, x'00', ?, ?, ?, '[]', '[]', 1, '{}')`);
const statuses = ['succeeded', 'succeeded', 'succeeded', 'succeeded', 'succeeded', 'succeeded', 'failed', 'denied'];
db.transaction(() => {
  for (let i = 0; i < rows; i++) {
    const createdAt = T0 + i * STEP_MS + Math.floor(Math.random() * 50);
    const status = i >= rows - 20 ? 'running' : (statuses[i % statuses.length] ?? 'succeeded');
    insert.run(
      `t${i}`,
      `call_${i.toString(36)}`,
      `s${Math.floor(i / 1000)}`,
      `tool_${(i * 7) % 20}`,
      status,
      JSON.stringify({ path: `/files/${i % 5000}.txt` }),
      createdAt,
      createdAt + 20,
      Math.random() * 500,
    );
  }
})();

const vault = createVault({ dir: temp.dir });
const store = createSqliteTraceStore({ db, vault });
const pinned = {
  index: createSqliteTraceStore({ db, vault, timeRangePlan: 'created-at-index' }),
  scan: createSqliteTraceStore({ db, vault, timeRangePlan: 'seq-scan' }),
};
const last = T0 + rows * STEP_MS;
const queries: [string, TraceQuery][] = [
  ['newest', {}],
  ['tool', { tool: 'tool_3' }],
  ['status running', { status: 'running' }],
  ['session', { sessionId: 's17' }],
  ['tool + status', { tool: 'tool_3', status: 'failed' }],
  ['text, common', { text: 'files' }],
  ['text, absent', { text: 'no-such-text' }],
  ['last hour', { from: last - 3_600_000 }],
  ['last minute', { from: last - 60_000 }],
  ['an hour long ago', { from: T0 + 3_600_000, to: T0 + 7_200_000 }],
  ['all but the ends', { from: T0 + 3_600_000, to: last - 3_600_000 }],
  ['before long ago', { to: T0 + 3_600_000 }],
  ['tool + an hour long ago', { tool: 'tool_3', from: T0 + 3_600_000, to: T0 + 7_200_000 }],
];
const msPerPage = (target: TraceStore, query: TraceQuery) => {
  const start = performance.now();
  const first = target.list(query);
  if (first.nextCursor) target.list({ ...query, cursor: first.nextCursor });
  return ((performance.now() - start) / 2).toFixed(2).padStart(8);
};
console.log('\nlist, ms per page over the first two pages:');
for (const [name, query] of queries) {
  const filter = resolveListFilter(query);
  if (filter.from === undefined && filter.to === undefined) {
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN ${listTracesSql(filter, null)}`)
      .all({ ...filter, pattern: '%x%', limit: 51 });
    const detail = (plan as { detail: string }[]).map((row) => row.detail).join(' | ');
    console.log(`  ${name.padEnd(24)} ${msPerPage(store, query)}   ${detail}`);
  } else {
    const chosen = msPerPage(store, query);
    console.log(
      `  ${name.padEnd(24)} ${chosen}   (pinned: index ${msPerPage(pinned.index, query)}, scan ${msPerPage(pinned.scan, query)})`,
    );
  }
}
const start = performance.now();
store.toolStats();
console.log(`\ntoolStats: ${(performance.now() - start).toFixed(1)} ms`);
db.close();
temp.remove();
