import { sql } from 'drizzle-orm';
import { blob, index, integer, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import type { CallStatus, SideEffect } from '../executor/types';
import { type CodedColumn, decodedSql } from './coded-columns';
import type { StoredBytes } from './compact-columns';
import { LATENCY_BIN_COLUMNS } from './latency-bins';
import type { StoredId } from './trace-id';

/** The statuses `tool_calls_status_seq_idx` holds: add this term to a query that must use it. */
export const STATUS_INDEXED = "status != 'succeeded'";

/** A column every query reads by its name, stored compactly in another (see `coded-columns.ts`). */
const decoded = (column: CodedColumn) => ({ as: sql.raw(decodedSql(column)) });

/** A 0/1 column: SQLite has no booleans, and better-sqlite3 cannot bind them. */
const flag = (name: string) => integer(name).$type<0 | 1>().notNull().default(0);

/**
 * One row per tool call, denormalised so that the executor's hot path is one INSERT at `begin`
 * and one UPDATE at `finish`, and the traces list never joins.
 *
 * `seq` (the rowid) is the keyset-pagination cursor: newest first is `seq DESC`, and every list
 * index ends in `seq` (as every index entry ends in the rowid) so that "filter, then newest first, then LIMIT" walks one index range
 * backwards without sorting. JSON columns hold text written by `JSON.stringify`; `arguments` is
 * redacted, the raw arguments only ever exist sealed in `sealed_arguments`.
 *
 * Bytes matter (≈ 10 million calls is a normal store): since migrations 0012–0014 a typical call
 * takes ≈ 585 bytes in all, row, indexes and search index (≈ 860 before 0012). The columns most
 * calls fill are stored compactly — `id` as 16 bytes, `stages` and `attempts` as varint bytes
 * (`compact-columns.ts`), a model message repeating the output or the error as a marker, no
 * metadata as '', and seven columns as codes behind virtual generated columns of their names
 * (`coded-columns.ts`: queries read `tool`, `status`… as ever, the row holds `tool_stored`…) —
 * and rows written before keep their older forms, which every reader still takes. In the sqlite3
 * shell, `hex(id)` and `hex(stages)` show the bytes; the decoders in `trace-id.ts` and
 * `compact-columns.ts` say what they mean.
 */
export const toolCalls = sqliteTable(
  'tool_calls',
  {
    // AUTOINCREMENT: a seq is never reused, even after the newest rows are deleted, so a cursor
    // handed out earlier can never point at a different call.
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    /** A canonical UUID as its 16 bytes, any other id as text (see `trace-id.ts`); text in rows before migration 0012. */
    id: text('id').$type<StoredId>().notNull(),
    toolCallIdStored: text('tool_call_id_stored').notNull(),
    sessionId: text('session_id'),
    /** `tool_call_id`, `actor`, `tool`, `status`, `side_effect`, `latency_ms` and `finished_at` as stored; see `coded-columns.ts`. */
    actorStored: text('actor_stored').notNull(),
    toolStored: text('tool_stored').notNull(),
    statusStored: text('status_stored').notNull(),
    sideEffectStored: text('side_effect_stored'),
    /** Redacted arguments as JSON; NULL when the record had none. */
    arguments: text('arguments'),
    /** The raw arguments sealed by the vault (AES-256-GCM); never plaintext. */
    sealedArguments: blob('sealed_arguments', { mode: 'buffer' }).notNull(),
    /** Epoch milliseconds. */
    createdAt: integer('created_at').notNull(),
    finishedStored: integer('finished_stored'),
    latencyStored: real('latency_stored'),
    /** Bytes (see `encodeStages`); JSON text in rows written before migration 0012. */
    stages: text('stages').$type<StoredBytes>().notNull(),
    /** Bytes (see `encodeAttempts`); JSON text in rows written before migration 0012. */
    attempts: text('attempts').$type<StoredBytes>().notNull(),
    attemptCount: integer('attempt_count').notNull().default(0),
    /** JSON; NULL when the output was undefined (JSON `null` is stored as the text `null`). */
    output: text('output'),
    stdout: text('stdout'),
    stderr: text('stderr'),
    exitCode: integer('exit_code'),
    error: text('error'),
    /** Copied out of `error` so the list can show and filter it without parsing JSON. */
    errorCode: text('error_code'),
    /**
     * What the model was told; NUL when it is the output's JSON text, NUL + U+0001 when it is the
     * executor's text for the call's error (see `encodeModelMessage`).
     */
    modelMessage: text('model_message'),
    /** JSON `ModelTruncation`: how much of the output the model got; NULL when it got all of it. */
    modelTruncation: text('model_truncation'),
    // One column per flag rather than a bitmask: `WHERE faulted = 1` reads plainly in the
    // sqlite3 shell, and badges map one column to one badge.
    retried: flag('retried'),
    fellBack: flag('fell_back'),
    truncated: flag('truncated'),
    faulted: flag('faulted'),
    replayed: flag('replayed'),
    /** JSON of the record's metadata; the empty text for none (`{}` in rows before migration 0012). */
    metadata: text('metadata').notNull(),
    /** Redacted JSON of the arguments an approver edited (what ran); NULL when the call ran as sent. */
    editedArguments: text('edited_arguments'),
    /** The edited arguments exactly as given, sealed like `sealed_arguments`; NULL without edits. */
    sealedEditedArguments: blob('sealed_edited_arguments', { mode: 'buffer' }),
    /** JSON `ApprovalRecord`: the wait for approval and its decision; NULL for calls that never waited. */
    approval: text('approval'),
    /** The trace this call replays (typed and indexed: the original lists its replays). */
    replayOf: text('replay_of'),
    /** Shared by the calls of one request, so a session replay runs them together again. */
    batchId: text('batch_id'),
    /** The call's place in its session, 1, 2, 3… in the order the calls began; NULL without a session. */
    sessionSeq: integer('session_seq'),
    /** The recorded call whose result this call was served from (recording mode); NULL when the tool ran. */
    servedFrom: text('served_from'),
    /** 1: the call came from an imported file (read-only: no sealed arguments, never replayed or cancelled). */
    imported: flag('imported'),
    /** Who made the call: `access_keys.ref` of the principal (a key, TOOLSCOPE_TOKEN, local mode); NULL before migration 0015. */
    principalRef: integer('principal_ref'),
    // Virtual: computed from the stored columns above when read, never stored (migration 0014).
    toolCallId: text('tool_call_id').notNull().generatedAlwaysAs(decoded('tool_call_id').as, { mode: 'virtual' }),
    actor: text('actor').notNull().generatedAlwaysAs(decoded('actor').as, { mode: 'virtual' }),
    tool: text('tool').notNull().generatedAlwaysAs(decoded('tool').as, { mode: 'virtual' }),
    status: text('status').$type<CallStatus>().notNull().generatedAlwaysAs(decoded('status').as, { mode: 'virtual' }),
    sideEffect: text('side_effect')
      .$type<SideEffect>()
      .generatedAlwaysAs(decoded('side_effect').as, { mode: 'virtual' }),
    /** Milliseconds, to the microsecond. */
    latencyMs: real('latency_ms').generatedAlwaysAs(decoded('latency_ms').as, { mode: 'virtual' }),
    /** Epoch milliseconds. */
    finishedAt: integer('finished_at').generatedAlwaysAs(decoded('finished_at').as, { mode: 'virtual' }),
  },
  (table) => [
    uniqueIndex('tool_calls_id_unique').on(table.id),
    // Every index entry ends in the rowid (`seq`): an index on (tool) is ordered by (tool, seq)
    // and walks `tool = ? AND seq < ?` as one range. Naming `seq` as a column too, as these did
    // before migration 0012, stored it twice (4 bytes a call per index). The names keep `_seq_`.
    index('tool_calls_tool_seq_idx').on(table.tool),
    // Partial: succeeded calls (most) have no entry, so the hot INSERT adds none. A query reads
    // it only with STATUS_INDEXED among its terms (SQLite must see that it implies the index's
    // WHERE); a list of succeeded calls walks the rowid instead, a bounded window at a time.
    index('tool_calls_status_seq_idx').on(table.status).where(sql.raw(STATUS_INDEXED)),
    index('tool_calls_session_seq_idx').on(table.sessionId),
    // At most once per tool call id: a repeated (session, tool call id) is found by one point
    // query (`sqlite-tool-call-lookup.ts`). Partial: a call without a session adds no entry; the
    // second term (always true) keeps queries by session alone on the index above.
    index('tool_calls_session_tool_call_idx')
      .on(table.sessionId, table.toolCallIdStored)
      .where(sql`${table.sessionId} IS NOT NULL AND ${table.toolCallIdStored} IS NOT NULL`),
    index('tool_calls_created_at_idx').on(table.createdAt),
    // Partial: most calls are no replay, and the hot INSERT then adds no entry here.
    index('tool_calls_replay_of_idx').on(table.replayOf).where(sql`${table.replayOf} IS NOT NULL`),
  ],
);

/**
 * Per-tool totals for the tools catalog, kept by triggers on `tool_calls` (see the migration
 * `0001`): counting a million calls per page view would block the server for ~100 ms, reading
 * this table takes microseconds. A call counts as a failure while its status is `failed`.
 */
export const toolCounts = sqliteTable('tool_counts', {
  tool: text('tool').primaryKey(),
  calls: integer('calls').notNull().default(0),
  failures: integer('failures').notNull().default(0),
  /** Epoch milliseconds of the newest call's start. */
  lastCalledAt: integer('last_called_at'),
});

/**
 * Fault rules (the Faults page, `/api/v1/faults`): what to break, where and how often. Few rows,
 * read into memory at start and on every change; `hits` and `draws` are written as rules fire.
 */
export const faultRules = sqliteTable('fault_rules', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  enabled: flag('enabled'),
  /** A tool name or a glob over tool names (`http_*`, `fs__*`). */
  tool: text('tool').notNull(),
  /** Only calls of this session; NULL for every session. */
  sessionId: text('session_id'),
  kind: text('kind').notNull(),
  /** JSON: the kind's parameters, as the API takes them. */
  params: text('params').notNull(),
  /** 0..1: the chance that the rule fires on an attempt it matches. */
  probability: real('probability').notNull().default(1),
  /** Seeds the rule's generator: the same seed and the same calls give the same faults. */
  seed: integer('seed').notNull(),
  /** Draws taken from the generator so far: the next draw continues the sequence after a restart. */
  draws: integer('draws').notNull().default(0),
  /** The rule stops firing after this many hits; NULL for no limit. */
  maxHits: integer('max_hits'),
  hits: integer('hits').notNull().default(0),
  /** Epoch ms after which the rule no longer fires; NULL for never. */
  expiresAt: integer('expires_at'),
  /** Epoch ms. */
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
});

/**
 * What the model said with a request's tool calls (`assistant_message`), one row per request that
 * carried one, keyed by the batch id its calls share. Redacted and bounded before it is written;
 * a request without a message writes no row.
 */
export const batches = sqliteTable('batches', {
  id: text('id').primaryKey(),
  sessionId: text('session_id'),
  /** Epoch milliseconds. */
  createdAt: integer('created_at').notNull(),
  assistantText: text('assistant_text'),
  assistantModel: text('assistant_model'),
  /** 1: the text was cut to the bound (see ASSISTANT_TEXT_MAX_BYTES). */
  assistantTruncated: flag('assistant_truncated'),
});

/**
 * Imports being written a chunk at a time (`POST /api/v1/import`, see `sqlite-import-traces.ts`):
 * a row while an import's calls go in, deleted in the transaction that completes it. A row left
 * by a process that stopped mid-import is an import that never completed: the store takes out
 * what it wrote when it next starts (migration 0017).
 */
export const imports = sqliteTable('imports', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  /** Epoch ms. */
  startedAt: integer('started_at').notNull(),
});

/**
 * What each chunk of an import wrote, to take out if the import never completes: a call
 * (`call_seq`) or a batch message (`batch_id`). Rows of completed imports are removed after.
 */
export const importRows = sqliteTable(
  'import_rows',
  {
    importId: integer('import_id').notNull(),
    callSeq: integer('call_seq'),
    batchId: text('batch_id'),
  },
  (table) => [index('import_rows_import_idx').on(table.importId)],
);

/** A `tool_calls` row as read back. */
export type ToolCallRow = typeof toolCalls.$inferSelect;
/** A `tool_calls` row as written (`seq` assigned by SQLite). */
export type NewToolCallRow = typeof toolCalls.$inferInsert;

/** The columns of one series table: counts of calls finished in one time bucket of one tool. */
function seriesTable(name: string) {
  const bins = Object.fromEntries(
    LATENCY_BIN_COLUMNS.map((column) => [column, integer(column).notNull().default(0)] as const),
  );
  return sqliteTable(
    name,
    {
      tool: text('tool').notNull(),
      /** Epoch milliseconds of the bucket's start (a multiple of its size). */
      bucket: integer('bucket').notNull(),
      calls: integer('calls').notNull().default(0),
      failures: integer('failures').notNull().default(0),
      /** Calls per latency bin (see LATENCY_BIN_UPPER_MS); p50/p95 are estimated from them. */
      ...bins,
    },
    (table) => [
      // Named, not a PRIMARY KEY, so that the per-tool read can pin it with INDEXED BY.
      uniqueIndex(`${name}_tool_bucket_idx`).on(table.tool, table.bucket),
      index(`${name}_bucket_idx`).on(table.bucket),
    ],
  );
}

/**
 * Calls, failures and a latency histogram per tool and minute: the trace store adds a call in
 * the commit where it gets `finished_at` (see `createAddToToolSeries`), triggers on `tool_calls`
 * move it when it changes later and take it out when deleted (migrations `tool_series` and
 * `tool_series_in_store`). The charts of the last hour and day read
 * these, never the calls themselves.
 */
export const toolSeriesMinutes = seriesTable('tool_series_minutes');

/** The same per tool and hour, for the week chart (168 rows per tool instead of 10,080). */
export const toolSeriesHours = seriesTable('tool_series_hours');

/**
 * One row per session (agent run), kept by triggers on `tool_calls` (migration `0008`, see
 * `session-triggers.ts`) so the sessions list reads a few rows instead of grouping every call.
 * Counts are exact after every insert, status change and delete; the bounds (`first_call_at`,
 * `last_call_at`, `last_finished_at`) only grow in a trigger, and a delete (or change) that may
 * shrink them marks the row `stale`: the store recomputes stale rows before it reads (one grouped
 * read per session, not per deleted call).
 */
export const sessions = sqliteTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    /** Epoch ms: the earliest call's start. */
    firstCallAt: integer('first_call_at').notNull(),
    /** Epoch ms: the latest call's start (the list's order). */
    lastCallAt: integer('last_call_at').notNull(),
    /**
     * `last_call_at` in whole seconds: what the list's index holds. It changes at most once a
     * second per session, so a call rarely moves an index entry (indexing `last_call_at` itself
     * moved one on every call, doubling the cost of an insert); the list sorts within a second.
     */
    lastCallSecond: integer('last_call_second').notNull(),
    /** Epoch ms: the latest finish; null while no call has finished. */
    lastFinishedAt: integer('last_finished_at'),
    calls: integer('calls').notNull().default(0),
    failed: integer('failed').notNull().default(0),
    denied: integer('denied').notNull().default(0),
    /** Calls running or awaiting approval. */
    running: integer('running').notNull().default(0),
    /** Summed waits for an approval decision, of the waits that ended (ms). */
    approvalWaitMs: real('approval_wait_ms').notNull().default(0),
    /** 1 when the bounds may be wrong after a delete; the store recomputes them before reading. */
    stale: flag('stale'),
  },
  (table) => [
    index('sessions_last_call_second_idx').on(table.lastCallSecond),
    index('sessions_stale_idx').on(table.id).where(sql`${table.stale} = 1`),
  ],
);

/**
 * The principals calls and audit entries name: named keys (`kind` key, the token stored as its
 * SHA-256 only, never itself), TOOLSCOPE_TOKEN's bootstrap admin (`token`) and local mode's one
 * person (`local`). Keys are revoked, never deleted: the calls and entries that name them stay
 * readable. `ref` is what `tool_calls.principal_ref` holds (a small integer: a byte or two a call).
 */
export const accessKeys = sqliteTable('access_keys', {
  ref: integer('ref').primaryKey({ autoIncrement: true }),
  /** `key_…` for a key; `token` and `local` for the two principals without a stored key. */
  id: text('id').notNull().unique(),
  kind: text('kind').$type<'key' | 'token' | 'local'>().notNull(),
  name: text('name').notNull(),
  role: text('role').$type<'agent' | 'viewer' | 'reviewer' | 'admin'>().notNull(),
  /** Hex SHA-256 of the key's token; NULL for `token` and `local`. */
  tokenHash: text('token_hash').unique(),
  /** JSON `{ allow, ask, deny }`: the key's own permission rules; NULL for none. */
  permissions: text('permissions'),
  /** JSON array of the tools the key may call; NULL for every tool. */
  tools: text('tools'),
  /** Epoch ms. */
  createdAt: integer('created_at').notNull(),
  lastUsedAt: integer('last_used_at'),
  revokedAt: integer('revoked_at'),
});

/**
 * People's logins: one row per session cookie, the cookie's value stored as its SHA-256 only.
 * Ended by logout, by expiry, and by revoking the key it was made with.
 */
export const loginSessions = sqliteTable('login_sessions', {
  /** Hex SHA-256 of the cookie's value. */
  idHash: text('id_hash').primaryKey(),
  keyRef: integer('key_ref').notNull(),
  createdAt: integer('created_at').notNull(),
  expiresAt: integer('expires_at').notNull(),
  endedAt: integer('ended_at'),
  /** The address the login came from. */
  address: text('address'),
});

/**
 * The audit trail: every decision, rule and key change, login and destructive action, who made it
 * and from where. Append-only (triggers refuse UPDATE and DELETE), each entry holding the SHA-256
 * of the one before it (`prev_hash`) in its own `hash`, so an entry edited or removed behind
 * Toolscope's back is found by `GET /api/v1/audit/verify`. Retention never prunes it.
 */
export const auditLog = sqliteTable('audit_log', {
  seq: integer('seq').primaryKey({ autoIncrement: true }),
  /** Epoch ms. */
  at: integer('at').notNull(),
  /** JSON `{ id, name, role }` of who did it. */
  principal: text('principal').notNull(),
  kind: text('kind').notNull(),
  /** What it was done to: a trace id, a rule, a key id… NULL when nothing in particular. */
  target: text('target'),
  /** JSON: what was done, `before`/`after` where it applies. */
  detail: text('detail').notNull(),
  /** The client's address. */
  address: text('address'),
  prevHash: text('prev_hash').notNull(),
  hash: text('hash').notNull(),
});
