/**
 * Fills a data folder with N realistic recorded calls, fast: rows encoded exactly as the trace
 * store encodes them (`encodeTraceRecord`, raw arguments sealed by the vault when they are not
 * their stored text), inserted in batches by
 * one prepared statement with the indexes and triggers of `tool_calls` set aside, then the indexes
 * built, the aggregates (tool counts, sessions, series) and the search index filled in bulk — what
 * the triggers and the store would have written call by call, in one pass each.
 *
 * The calls: 8 tools with their own arguments and outputs (file paths, shell commands, URLs, code
 * and logs made of a few hundred words), sessions of 40 calls with 8 running at once, ids as the
 * executor makes them (UUIDv7), OpenAI- and Anthropic-style tool call ids, 90 % succeeded and the
 * rest failed, denied or cancelled with real-looking error messages, 3 % retried; the newest 20
 * still running. Deterministic: the same N gives the same rows.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { setStoredForms } from '../lib/db/coded-columns';
import { migrate } from '../lib/db/migrate';
import { SEARCH_INDEX_FILL_SQL, SEARCH_TABLES } from '../lib/db/search-index';
import { sessionTriggersSql } from '../lib/db/session-triggers';
import { INSERTED, SAME_AS_ARGUMENTS } from '../lib/db/sqlite-trace-store';
import { createAddToToolSeries, type FinishedCall } from '../lib/db/tool-series-batch';
import { encodeTraceRecord } from '../lib/db/trace-row';
import { createVault } from '../lib/db/vault';
import { describeErrorForModel } from '../lib/executor/model-message';
import type { Attempt, CallStatus, ToolErrorData, TraceRecord, TraceStage } from '../lib/executor/types';

/** Bump when the generated calls change: a cached folder of another version is seeded again. */
export const SEED_VERSION = 3;
/** Calls per session, and sessions running at once (their calls interleave). */
const SESSION_CALLS = 40;
const CONCURRENT_SESSIONS = 8;
/** The newest call starts here; the rest go back in time, about half a second apart on average. */
export const SEED_END = Date.UTC(2026, 10, 1, 12, 0, 0);
const MEAN_GAP_MS = 520;
const BATCH = 50_000;

/** A small deterministic generator (mulberry32). */
function createRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)] as T;
  const chars = (alphabet: string, n: number) => {
    let out = '';
    for (let i = 0; i < n; i++) out += alphabet[int(alphabet.length)];
    return out;
  };
  return { next, int, pick, chars };
}
type Random = ReturnType<typeof createRandom>;

const WORDS = (
  'account agent alpha api archive auth backup balance batch billing build cache cart catalog checkout client ' +
  'cluster config context customer dashboard data deploy docs draft email error event export feature fetch file ' +
  'filter gateway graph handler health index invoice job kernel label ledger list loader log metrics migration ' +
  'model monitor notes order output page parser payment pipeline plan policy profile queue quota record refund ' +
  'report request router runner schema search secret server service session settings shipping snapshot source ' +
  'status storage stream summary sync table task template tenant test token trace user vendor worker workflow'
).split(' ');
const EXTS = ['ts', 'tsx', 'md', 'json', 'py', 'yaml', 'sql', 'txt'];
const HOSTS = ['api.github.com', 'api.stripe.com', 'internal.example.com', 'status.example.org', 'hooks.slack.com'];
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const HEX = '0123456789abcdef';

function sentence(random: Random, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(random.pick(WORDS));
  return out.join(' ');
}
function filePath(random: Random): string {
  const depth = 1 + random.int(3);
  const parts = ['src'];
  for (let i = 0; i < depth; i++) parts.push(random.pick(WORDS));
  return `${parts.join('/')}.${random.pick(EXTS)}`;
}
function codeLines(random: Random, lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    const a = random.pick(WORDS);
    const b = random.pick(WORDS);
    out.push(
      random.pick([
        `export function ${a}${b[0]?.toUpperCase()}${b.slice(1)}(${random.pick(WORDS)}) {`,
        `  const ${a} = await ${b}.${random.pick(WORDS)}(${random.int(100)});`,
        `  if (!${a}) throw new Error('${sentence(random, 3)}');`,
        `  return ${a}.${b};`,
        `import { ${a} } from './${b}';`,
        '}',
      ]),
    );
  }
  return out.join('\n');
}

interface Shape {
  tool: string;
  sideEffect: TraceRecord['sideEffect'];
  arguments: Record<string, unknown>;
  output: unknown;
  stdout: string | null;
  stderr: string | null;
  exitCode: number | null;
  failure: ToolErrorData;
}

const failure = (code: string, message: string, kind: ToolErrorData['kind'] = 'business'): ToolErrorData => ({
  code,
  message,
  retryable: false,
  kind,
});

// Weighted: read_file 30 %, run_shell 20 %, http_request 12 %, write_file 10 %, and so on.
const TOOL_WEIGHTS: [number, (random: Random) => Shape][] = [
  [
    30,
    (random) => {
      const file = filePath(random);
      const content = codeLines(random, 1 + random.int(4));
      return {
        tool: 'read_file',
        sideEffect: 'read',
        arguments: { path: file },
        output: { path: file, content, bytes: content.length },
        stdout: null,
        stderr: null,
        exitCode: null,
        failure: failure('FILE_NOT_FOUND', `ENOENT: no such file or directory, open '${file}'`),
      };
    },
  ],
  [
    20,
    (random) => {
      const word = random.pick(WORDS);
      const passed = 3 + random.int(40);
      return {
        tool: 'run_shell',
        sideEffect: 'exec',
        arguments: { command: 'npm', args: ['test', '--', word] },
        output: { exitCode: 0 },
        stdout: ` ✓ src/${word}.test.ts (${passed} tests) ${random.int(900)}ms`,
        stderr: null,
        exitCode: 0,
        failure: failure(
          'EXIT_CODE',
          `Command failed with exit code 1: npm test -- ${word}: AssertionError: expected ${random.int(100)} to equal ${random.int(100)}`,
        ),
      };
    },
  ],
  [
    12,
    (random) => {
      const host = random.pick(HOSTS);
      const url = `https://${host}/v1/${random.pick(WORDS)}/${random.int(100_000)}`;
      return {
        tool: 'http_request',
        sideEffect: 'read',
        arguments: { url, method: 'GET' },
        output: {
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: `{"id":${random.int(1e6)},"name":"${sentence(random, 2)}","status":"${random.pick(['active', 'pending', 'closed'])}","tags":"${sentence(random, 3)}"}`,
        },
        stdout: null,
        stderr: null,
        exitCode: null,
        failure: failure(
          'HTTP_ERROR',
          random.next() < 0.5
            ? `HTTP 503 Service Unavailable from ${host}`
            : `connect ETIMEDOUT 10.0.${random.int(255)}.${random.int(255)}:443`,
          'business',
        ),
      };
    },
  ],
  [
    10,
    (random) => {
      const file = filePath(random);
      const content = codeLines(random, 1 + random.int(3));
      return {
        tool: 'write_file',
        sideEffect: 'write',
        arguments: { path: file, content },
        output: { path: file, bytesWritten: content.length },
        stdout: null,
        stderr: null,
        exitCode: null,
        failure: failure('PERMISSION_DENIED', `write_file needs approval for ${file}; denied by policy`, 'permission'),
      };
    },
  ],
  [
    8,
    (random) => {
      const a = random.int(1000);
      const b = 1 + random.int(99);
      return {
        tool: 'calculator',
        sideEffect: 'none',
        arguments: { expression: `${a} * (${b} + 7) / 2` },
        output: { result: (a * (b + 7)) / 2 },
        stdout: null,
        stderr: null,
        exitCode: null,
        failure: failure('INVALID_EXPRESSION', `Undefined symbol ${random.pick(WORDS)}`),
      };
    },
  ],
  [
    8,
    (random) => {
      const query = sentence(random, 2 + random.int(3));
      return {
        tool: 'search_docs',
        sideEffect: 'read',
        arguments: { query, limit: 5 },
        output: {
          hits: [0, 1, 2].map(() => ({ title: sentence(random, 3), path: `docs/${random.pick(WORDS)}.md` })),
        },
        stdout: null,
        stderr: null,
        exitCode: null,
        failure: failure(
          'INDEX_UNAVAILABLE',
          `search index ${random.pick(WORDS)} is rebuilding; try again shortly`,
          'business',
        ),
      };
    },
  ],
  [
    7,
    (random) => {
      const dir = `src/${random.pick(WORDS)}`;
      return {
        tool: 'list_dir',
        sideEffect: 'read',
        arguments: { path: dir },
        output: { entries: [0, 1, 2, 3, 4].map(() => `${random.pick(WORDS)}.${random.pick(EXTS)}`) },
        stdout: null,
        stderr: null,
        exitCode: null,
        failure: failure('FILE_NOT_FOUND', `ENOENT: no such file or directory, scandir '${dir}'`),
      };
    },
  ],
  [
    5,
    (random) => {
      const file = `/workspace/${filePath(random)}`;
      return {
        tool: 'fs__read_text_file',
        sideEffect: 'read',
        arguments: { path: file, head: 20 },
        output: { content: [{ type: 'text', text: sentence(random, 8) }] },
        stdout: null,
        stderr: null,
        exitCode: null,
        failure: failure(
          'UPSTREAM_ERROR',
          `MCP error -32603: Access denied - path outside allowed directories: ${file}`,
        ),
      };
    },
  ],
];
const TOTAL_WEIGHT = TOOL_WEIGHTS.reduce((sum, [weight]) => sum + weight, 0);

function shapeOf(random: Random): Shape {
  let roll = random.int(TOTAL_WEIGHT);
  for (const [weight, make] of TOOL_WEIGHTS) {
    if (roll < weight) return make(random);
    roll -= weight;
  }
  return (TOOL_WEIGHTS[0] as [number, (random: Random) => Shape])[1](random);
}

function uuidV7(random: Random, ms: number): string {
  const time = ms.toString(16).padStart(12, '0');
  const variant = HEX[8 + random.int(4)];
  return `${time.slice(0, 8)}-${time.slice(8)}-7${random.chars(HEX, 3)}-${variant}${random.chars(HEX, 3)}-${random.chars(HEX, 12)}`;
}

const round3 = (ms: number) => Math.round(ms * 1000) / 1000;

/** The stages the executor records, with realistic durations; the execute stage takes `executeMs`. */
function stagesOf(random: Random, shape: Shape, status: CallStatus, executeMs: number, error: ToolErrorData | null) {
  const parse = round3(0.02 + random.next() * 0.1);
  const validate = round3(0.03 + random.next() * 0.3);
  const permission = round3(0.01 + random.next() * 0.05);
  const normalize = round3(0.02 + random.next() * 0.2);
  const trace = round3(0.01 + random.next() * 0.05);
  const policy = shape.sideEffect === 'write' || shape.sideEffect === 'exec' ? 'ask' : 'allow';
  let at = 0;
  const stage = (
    name: TraceStage['name'],
    durationMs: number,
    stageStatus: TraceStage['status'],
    detail: string | null,
  ) => {
    const value: TraceStage = { name, status: stageStatus, startedAt: round3(at), durationMs, detail };
    at += durationMs;
    return value;
  };
  const denied = status === 'denied';
  return [
    stage('parse', parse, 'ok', 'JSON string'),
    stage('validate', validate, 'ok', null),
    stage(
      'permission',
      permission,
      denied ? 'failed' : 'ok',
      `default for ${shape.sideEffect}: ${denied ? 'deny' : policy}`,
    ),
    stage(
      'execute',
      denied ? 0 : executeMs,
      denied ? 'skipped' : error ? 'failed' : 'ok',
      denied ? null : error ? `${error.code}: ${error.message}; 1 attempt` : '1 attempt',
    ),
    stage('normalize', error ? 0 : normalize, error ? 'skipped' : 'ok', null),
    stage('trace', trace, 'ok', 'finalized'),
  ];
}

/** Call `i` of `total` (0 the oldest): a finished call as the executor would have recorded it. */
export function seedCall(i: number, total: number): TraceRecord & { sessionSeq: number } {
  const random = createRandom(i * 2654435761 + 17);
  const shape = shapeOf(random);
  const round = Math.floor(i / (SESSION_CALLS * CONCURRENT_SESSIONS));
  const lane = i % CONCURRENT_SESSIONS;
  const sessionIndex = round * CONCURRENT_SESSIONS + lane;
  const sessionSeq = Math.floor((i % (SESSION_CALLS * CONCURRENT_SESSIONS)) / CONCURRENT_SESSIONS) + 1;
  const sessionId = `run-${createRandom(sessionIndex + 1).chars(ALNUM, 10)}`;
  const createdAt = SEED_END - (total - 1 - i) * MEAN_GAP_MS + random.int(MEAN_GAP_MS >> 1);
  const roll = random.next();
  const running = i >= total - 20;
  const status: CallStatus = running
    ? 'running'
    : roll < 0.905
      ? 'succeeded'
      : roll < 0.97
        ? 'failed'
        : roll < 0.99
          ? 'denied'
          : 'cancelled';
  const error =
    status === 'failed'
      ? shape.failure
      : status === 'denied'
        ? failure(
            'PERMISSION_DENIED',
            `${shape.tool} is denied by policy (config: toolscope.config.json)`,
            'permission',
          )
        : status === 'cancelled'
          ? failure('CANCELLED', 'Cancelled by the client', 'internal')
          : null;
  const executeMs = round3(
    shape.tool === 'http_request'
      ? 40 + random.next() * 400
      : shape.tool === 'run_shell'
        ? 200 + random.next() * 3000
        : 0.2 + random.next() * 8,
  );
  const stages = stagesOf(random, shape, status, executeMs, error);
  const execute = stages[3] as TraceStage;
  const retried = status === 'succeeded' && random.next() < 0.03;
  const attempts: Attempt[] =
    status === 'denied'
      ? []
      : [
          ...(retried
            ? [
                {
                  number: 1,
                  tool: shape.tool,
                  fallback: false,
                  startedAt: execute.startedAt,
                  durationMs: round3(executeMs / 3),
                  outcome: 'error' as const,
                  timeoutMs: 30_000,
                  error: failure('HTTP_ERROR', 'HTTP 502 Bad Gateway', 'business'),
                  backoffMs: 200,
                  fault: null,
                },
              ]
            : []),
          {
            number: retried ? 2 : 1,
            tool: shape.tool,
            fallback: false,
            startedAt: round3(execute.startedAt + (retried ? executeMs / 3 + 0.2 : 0.01)),
            durationMs: round3(retried ? executeMs / 2 : executeMs - 0.02),
            outcome: error ? 'error' : 'ok',
            timeoutMs: 30_000,
            error,
            backoffMs: null,
            fault: null,
          },
        ];
  const last = stages.at(-1) as TraceStage;
  const latencyMs = round3(last.startedAt + last.durationMs);
  const callId = sessionIndex % 2 === 0 ? `call_${random.chars(ALNUM, 24)}` : `toolu_01${random.chars(ALNUM, 22)}`;
  const output = status === 'succeeded' ? shape.output : undefined;
  return {
    id: uuidV7(random, createdAt),
    toolCallId: callId,
    sessionId,
    actor: 'api',
    principal: null,
    tool: shape.tool,
    status,
    sideEffect: shape.sideEffect,
    arguments: shape.arguments,
    // As sent: compact JSON mostly, spaced by some clients (those are sealed, see SAME_AS_ARGUMENTS).
    rawArguments: random.next() < 0.15 ? JSON.stringify(shape.arguments, null, 1) : JSON.stringify(shape.arguments),
    editedArguments: null,
    rawEditedArguments: null,
    approval: null,
    replayOf: null,
    batchId: null,
    servedFrom: null,
    createdAt,
    finishedAt: running ? null : createdAt + Math.ceil(latencyMs),
    latencyMs: running ? null : latencyMs,
    stages: running ? stages.slice(0, 3) : stages,
    attempts: running ? [] : attempts,
    output,
    stdout: status === 'succeeded' ? shape.stdout : null,
    stderr:
      status === 'failed' && shape.tool === 'run_shell'
        ? `Error: ${error?.message}\n    at ${filePath(random)}:${random.int(300)}`
        : null,
    exitCode: shape.tool === 'run_shell' && !running && status !== 'denied' ? (status === 'succeeded' ? 0 : 1) : null,
    error,
    modelMessage: running ? null : error ? describeErrorForModel(error) : JSON.stringify(output),
    modelTruncation: null,
    flags: { retried, fellBack: false, truncated: false, faulted: false, replayed: false },
    metadata: {},
    sessionSeq,
  };
}

/** The columns the seeder writes: what the store writes, in its own encoding. */
/**
 * Seeds `dir/toolscope.db` (created, migrated) with `total` calls; returns the seconds it took.
 * 1. migrate, then set aside the indexes and triggers of `tool_calls` (their SQL kept);
 * 2. insert the rows in batches of BATCH, one transaction each, adding finished calls to the
 *    tool series as the store does;
 * 3. create the indexes and triggers again, fill `tool_counts`, `sessions` and the search index
 *    from the rows, switch to WAL and checkpoint.
 */
export function seedStore(options: { dir: string; calls: number; progress?: (text: string) => void }): number {
  const { dir, calls: total } = options;
  const progress = options.progress ?? (() => {});
  const start = performance.now();
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'toolscope.db');
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true });
  const db = new Database(file);
  migrate(db);
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -1000000');
  db.pragma('temp_store = MEMORY');
  const setAside = db
    .prepare(
      "SELECT type, name, sql FROM sqlite_master WHERE tbl_name = 'tool_calls' AND type IN ('index', 'trigger') AND sql IS NOT NULL",
    )
    .all() as { type: 'index' | 'trigger'; name: string; sql: string }[];
  for (const { type, name } of setAside) db.exec(`DROP ${type.toUpperCase()} \`${name}\``);

  const vault = createVault({ dir });
  // The columns and values the store writes (coded columns in their compact form).
  const insert = db.prepare(
    `INSERT INTO tool_calls (${INSERTED.map(([column]) => column).join(', ')}) VALUES (${INSERTED.map(([, value]) => value).join(', ')})`,
  );
  const addToToolSeries = createAddToToolSeries(db);
  const insertBatch = db.transaction((from: number, to: number) => {
    const finished: FinishedCall[] = [];
    for (let i = from; i < to; i++) {
      const call = seedCall(i, total);
      const values = encodeTraceRecord(call, call.sessionSeq);
      setStoredForms(values);
      const sealedArguments =
        call.rawArguments === values.arguments ? SAME_AS_ARGUMENTS : vault.seal(call.rawArguments, call.id);
      insert.run({ ...values, sealedArguments, sealedEditedArguments: null });
      if (call.finishedAt !== null) {
        finished.push({ tool: call.tool, status: call.status, finishedAt: call.finishedAt, latencyMs: call.latencyMs });
      }
    }
    addToToolSeries(finished);
  });
  for (let from = 0; from < total; from += BATCH) {
    insertBatch(from, Math.min(total, from + BATCH));
    if ((from / BATCH) % 20 === 19) progress(`seeded ${from + BATCH} of ${total} calls`);
  }
  progress(`inserted ${total} calls in ${((performance.now() - start) / 1000).toFixed(0)} s; indexing`);

  for (const { type, sql } of setAside) if (type === 'index') db.exec(sql);
  db.exec(`INSERT INTO tool_counts (tool, calls, failures, last_called_at)
    SELECT tool, count(*), sum(status = 'failed'), max(created_at) FROM tool_calls GROUP BY tool`);
  const sessionsBackfill = sessionTriggersSql()
    .split('--> statement-breakpoint')
    .find((statement) => statement.includes('INSERT INTO `sessions`') && !statement.includes('CREATE TRIGGER'));
  if (!sessionsBackfill) throw new Error('no sessions backfill in sessionTriggersSql()');
  db.exec(sessionsBackfill);
  progress(`indexes and aggregates built at ${((performance.now() - start) / 1000).toFixed(0)} s; search index`);
  // In one statement, FTS5's own merges (as before migration 0011) keep the segments few; the
  // server's indexer merges in small steps of its own instead (see search-indexer.ts).
  const automerge = (pages: 0 | 4) => {
    for (const { name } of SEARCH_TABLES) db.exec(`INSERT INTO ${name} (${name}, rank) VALUES ('automerge', ${pages})`);
  };
  automerge(4);
  for (const fill of SEARCH_INDEX_FILL_SQL) db.prepare(fill).run({ from: 0, to: total });
  automerge(0);
  db.prepare('UPDATE search_state SET indexed_upto = ?').run(total);
  for (const { type, sql } of setAside) if (type === 'trigger') db.exec(sql);
  db.pragma('journal_mode = WAL');
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  return (performance.now() - start) / 1000;
}

/** What a seeded folder says about itself (`seed.json`): reused while it matches. */
interface SeedMarker {
  calls: number;
  schema: string;
  seedSeconds: number;
}

/** The migrations applied and the generator's version: a seeded folder is stale when either changes. */
export function seedSchemaVersion(): string {
  const journal = JSON.parse(fs.readFileSync(path.join(process.cwd(), 'drizzle', 'meta', '_journal.json'), 'utf8')) as {
    entries: { tag: string }[];
  };
  return `${journal.entries.map((entry) => entry.tag).join(',')}#seed-${SEED_VERSION}`;
}

/**
 * A data folder holding `calls` seeded calls: `TOOLSCOPE_BENCH_DATA_DIR`, or
 * `bench/tmp/store-<calls>`; seeded now unless its `seed.json` says it already holds them for
 * the current migrations and generator. Returns the folder and the seconds its seeding took.
 */
export function ensureSeeded(options: { calls: number; progress?: (text: string) => void }): {
  dir: string;
  seedSeconds: number;
  cached: boolean;
} {
  const dir = path.resolve(process.env.TOOLSCOPE_BENCH_DATA_DIR ?? path.join('bench', 'tmp', `store-${options.calls}`));
  const markerFile = path.join(dir, 'seed.json');
  const schema = seedSchemaVersion();
  if (fs.existsSync(markerFile)) {
    const marker = JSON.parse(fs.readFileSync(markerFile, 'utf8')) as SeedMarker;
    if (marker.calls === options.calls && marker.schema === schema) {
      return { dir, seedSeconds: marker.seedSeconds, cached: true };
    }
  }
  fs.rmSync(markerFile, { force: true });
  options.progress?.(`seeding ${options.calls} calls into ${dir} (schema ${schema})`);
  const seedSeconds = seedStore({ dir, calls: options.calls, progress: options.progress });
  const marker: SeedMarker = { calls: options.calls, schema, seedSeconds };
  fs.writeFileSync(markerFile, `${JSON.stringify(marker, null, 2)}\n`);
  return { dir, seedSeconds, cached: false };
}

/**
 * The folder `ensureSeeded` would give for `calls` when it is already seeded for the current
 * migrations and generator; null when it would seed it (nothing is written either way).
 */
export function cachedSeed(calls: number): { dir: string; seedSeconds: number } | null {
  const dir = path.resolve(process.env.TOOLSCOPE_BENCH_DATA_DIR ?? path.join('bench', 'tmp', `store-${calls}`));
  const markerFile = path.join(dir, 'seed.json');
  if (!fs.existsSync(markerFile)) return null;
  const marker = JSON.parse(fs.readFileSync(markerFile, 'utf8')) as SeedMarker;
  return marker.calls === calls && marker.schema === seedSchemaVersion()
    ? { dir, seedSeconds: marker.seedSeconds }
    : null;
}
