/**
 * Fills a data folder with N recorded calls (default 1,000,000) spread over the past N seconds,
 * for measuring the pages and the API on a large database:
 *   npx tsx bench/seed-traces.ts .toolscope-big 1000000
 *   TOOLSCOPE_DATA_DIR=.toolscope-big npm start
 */
import path from 'node:path';
import { openDatabase } from '../lib/db/open-database';
import { createSqliteTraceStore } from '../lib/db/sqlite-trace-store';
import { createVault } from '../lib/db/vault';
import type { CallStatus, TraceRecord } from '../lib/executor/types';

const dir = path.resolve(process.argv[2] ?? '.toolscope-big');
const total = Number(process.argv[3] ?? 1_000_000);
const db = openDatabase(path.join(dir, 'toolscope.db'));
const store = createSqliteTraceStore({ db, vault: createVault({ dir }) });
const tools = ['calculator', 'read_file', 'write_file', 'run_shell', 'http_request'];
const statuses: CallStatus[] = ['succeeded', 'succeeded', 'succeeded', 'failed', 'denied'];
const start = Date.now() - total * 1000;

function record(i: number): TraceRecord {
  const status = statuses[i % statuses.length] as CallStatus;
  const failed = status !== 'succeeded';
  return {
    id: `seed-${i}`,
    toolCallId: `call_seed_${i}`,
    sessionId: `sess-${i % 1000}`,
    actor: 'seed',
    tool: tools[i % tools.length] as string,
    status,
    sideEffect: 'none',
    arguments: { expression: `${i} + 1` },
    rawArguments: `{"expression":"${i} + 1"}`,
    editedArguments: null,
    rawEditedArguments: null,
    approval: null,
    replayOf: null,
    batchId: null,
    servedFrom: null,
    createdAt: start + i * 1000,
    finishedAt: start + i * 1000 + 5,
    latencyMs: 1 + (i % 50),
    stages: ['parse', 'validate', 'permission', 'execute', 'normalize', 'trace'].map((name, n) => ({
      name: name as TraceRecord['stages'][number]['name'],
      status: 'ok' as const,
      startedAt: n * 0.2,
      durationMs: 0.2,
      detail: null,
    })),
    attempts: [],
    output: failed ? null : { result: i + 1 },
    stdout: null,
    stderr: null,
    exitCode: null,
    error: failed
      ? {
          code: status === 'denied' ? 'PERMISSION_DENIED' : 'EXECUTION_ERROR',
          message: 'seeded failure',
          retryable: false,
          kind: status === 'denied' ? 'permission' : 'business',
        }
      : null,
    modelMessage: failed ? 'Error' : `{"result":${i + 1}}`,
    modelTruncation: null,
    flags: { retried: false, fellBack: false, truncated: false, faulted: false, replayed: false },
    metadata: {},
  };
}

const t0 = performance.now();
const batch = db.transaction((from: number, to: number) => {
  for (let i = from; i < to; i++) store.finish(record(i));
  store.flush();
});
for (let i = 0; i < total; i += 20_000) batch(i, Math.min(total, i + 20_000));
store.close();
console.log(`seeded ${total} calls into ${dir} in ${Math.round(performance.now() - t0)} ms`);
