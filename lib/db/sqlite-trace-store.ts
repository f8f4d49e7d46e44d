import fs from 'node:fs';
import path from 'node:path';
import { getTableColumns } from 'drizzle-orm';
import { ToolError } from '../executor/errors';
import { IdTable } from '../executor/id-table';
import type { TraceRecord } from '../executor/types';
import { prepareByPosition } from './bind-by-position';
import { setStoredForms, writtenColumn } from './coded-columns';
import { type CommitTimers, systemCommitTimers } from './commit-timers';
import { createGroupCommit, DEFAULT_MAX_BATCH, DEFAULT_SET_ASIDE_RETRY_MS } from './group-commit';
import type { SqliteDatabase } from './open-database';
import { createSqlitePrincipalDirectory, type PrincipalDirectory } from './principal-directory';
import { STATUS_INDEXED, type ToolCallRow, toolCalls } from './schema';
import { createSearchIndexer } from './search-indexer';
import { createSessionSequence } from './session-sequence';
import { createSqliteBatchMessages } from './sqlite-batch-messages';
import { createSqliteImportTraces } from './sqlite-import-traces';
import { createSqliteListTraces, type ListTracesOptions } from './sqlite-list-traces';
import { createSqliteSessions } from './sqlite-sessions';
import { createSqliteToolStats } from './sqlite-tool-stats';
import { createSqliteTraceDeletion } from './sqlite-trace-deletion';
import { createSqliteTraceNavigation } from './sqlite-trace-navigation';
import { describeStoreError, isStoreWideError, StoreUnavailableError } from './store-faults';
import { createAddToToolSeries, type FinishedCall } from './tool-series-batch';
import { idTextSql, storedIdForms } from './trace-id';
import { decodeStoredTrace, encodeTraceRecord, type TraceRowValues } from './trace-row';
import { type BatchMessage, INTERRUPTED_ERROR, type StoreHealth, type TraceStore } from './trace-store';
import { type Vault, VaultError } from './vault';

export interface SqliteTraceStoreOptions {
  /** An open, migrated database (see `openDatabase`); the store closes it on `close()`. */
  db: SqliteDatabase;
  /** Seals the raw arguments; the same vault (key) must open them later. */
  vault: Vault;
  /** See `ListTracesOptions`; leave unset outside tests. */
  timeRangePlan?: ListTracesOptions['timeRangePlan'];
  /** Rows a text search or combined filter reads at most per page (see DEFAULT_SCAN_WINDOW). */
  scanWindow?: number;
  /** The timers the group commit runs on; tests pass the manual clock. */
  timers?: CommitTimers;
  /**
   * How long a finished call may wait for others to share its commit: 0 (the default) is the end
   * of the current turn of the event loop. Its caller waits that long, plus the commit.
   */
  commitWindowMs?: number;
  /** How calls refer to their principals; by default the database's `access_keys`. */
  principals?: PrincipalDirectory;
  /**
   * Queued writes at which, while commits fail, `admit` refuses new calls (default
   * DEFAULT_MAX_QUEUED_WRITES): what an outage can hold in memory, and lose to a crash.
   */
  maxQueued?: number;
  /** Epoch ms, for the time of `health().lastError`. */
  now?: () => number;
}

// Columns a call may change after `begin`. Identity and indexed-but-immutable columns (tool,
// session, created_at) stay out of the hot UPDATE so SQLite has no index entries to rewrite.
const MUTABLE_KEYS = [
  'status',
  'sideEffect',
  'arguments',
  'finishedAt',
  'latencyMs',
  'stages',
  'attempts',
  'attemptCount',
  'output',
  'stdout',
  'stderr',
  'exitCode',
  'error',
  'errorCode',
  'modelMessage',
  'modelTruncation',
  'retried',
  'fellBack',
  'truncated',
  'faulted',
  'replayed',
  'metadata',
  'editedArguments',
  'sealedEditedArguments',
  'approval',
] as const satisfies readonly (keyof ToolCallRow)[];
const IDENTITY_KEYS = [
  'id',
  'toolCallId',
  'sessionId',
  'actor',
  'tool',
  'createdAt',
  'sealedArguments',
  'replayOf',
  'batchId',
  'servedFrom',
  // Written with the row, never changed: a later upsert keeps the number the row got first.
  'sessionSeq',
  'principalRef',
] as const satisfies readonly (keyof ToolCallRow)[];

// [SQL column, named parameter]: names come from the drizzle schema, parameters are its keys.
const columns = getTableColumns(toolCalls);
const MUTABLE = MUTABLE_KEYS.map((key) => [columns[key].name, key] as const);
const ALL = [...IDENTITY_KEYS.map((key) => [columns[key].name, key] as const), ...MUTABLE];
/**
 * [stored column, SQL of its value] of every column a new row gets: a coded column's stored
 * column and its stored form (see `coded-columns.ts`), any other column and its parameter.
 */
export const INSERTED = ALL.map(([column, param]) => writtenColumn(column, param));

const upsertSql = (where: string) => `INSERT INTO tool_calls (${INSERTED.map(([column]) => column).join(', ')})
    VALUES (${INSERTED.map(([, value]) => value).join(', ')})
    ON CONFLICT (id) DO UPDATE SET ${INSERTED.filter(
      ([column]) => column !== 'id' && column !== columns.sessionSeq.name,
    )
      .map(([column]) => `${column} = excluded.${column}`)
      .join(', ')}
    WHERE tool_calls.status != 'interrupted' AND tool_calls.${where}`;
// `created_at` is not among the columns an update writes: a finish time is coded against the row's.
const updateSql = (where: string) =>
  `UPDATE tool_calls SET ${MUTABLE.map(([column, param]) => writtenColumn(column, param, 'created_at'))
    .map(([column, value]) => `${column} = ${value}`)
    .join(', ')}
    WHERE id = @id AND status != 'interrupted' AND ${where}`;
// The plain forms: any value reads as itself (see `coded-columns.ts`).
const interruptSql = (where: string) =>
  `UPDATE tool_calls SET status_stored = 'interrupted', finished_stored = @now, error = @error, error_code = @code
    WHERE status = 'running' AND ${STATUS_INDEXED} AND imported = 0 AND ${where}`;

/**
 * The statements of the write path; exported for the query-plan tests. None writes over a row
 * marked `interrupted`: that mark comes from a newer process (see `markInterrupted`), and an
 * older process still finishing the call must not bring it back to life; its write is dropped.
 *
 * The store counts a call in the tool series when it finishes (see `createAddToToolSeries`), so
 * it must know whether a write is that transition. Each statement comes in two: one for a row not
 * yet finished (or new), so every row it changes is such a transition — the hot path — and one
 * for the rare write over a call already finished, which the triggers of migration 0004 move in
 * the series.
 */
export const TRACE_WRITE_SQL = {
  upsert: upsertSql('finished_at IS NULL'),
  upsertFinished: upsertSql('finished_at IS NOT NULL'),
  // `tool` is not in the SET: the one the store counts (the record's) must be the row's.
  update: updateSql('finished_at IS NULL AND tool = @tool'),
  updateFinished: updateSql('finished_at IS NOT NULL'),
  interrupt: `${interruptSql('finished_at IS NULL')}
    RETURNING tool, status, finished_at AS finishedAt, latency_ms AS latencyMs`,
  interruptFinished: interruptSql('finished_at IS NOT NULL'),
} as const;

/** Reads by the trace's own columns; exported for the query-plan tests. */
export const TRACE_READ_SQL = {
  // `replay_of` holds the original's id as text.
  replays: `SELECT ${idTextSql('id')} FROM tool_calls WHERE replay_of = @id ORDER BY seq`,
  sealed:
    'SELECT sealed_arguments AS sealedArguments, sealed_edited_arguments AS sealedEditedArguments, arguments FROM tool_calls WHERE id IN (@id, @idText)',
  // Every column, named as the row type names it; by either form of the id (see `trace-id.ts`).
  byId: `SELECT ${Object.entries(getTableColumns(toolCalls))
    .map(([key, column]) => `${column.name} AS "${key}"`)
    .join(', ')} FROM tool_calls WHERE id IN (@id, @idText)`,
  sessionSeqMax: 'SELECT MAX(session_seq) FROM tool_calls WHERE session_id = @sessionId',
} as const;

/** Queued writes that force a commit when reached, so a burst never queues without bound. */
export const MAX_PENDING_WRITES = DEFAULT_MAX_BATCH;
/** After a failed commit, when the writes it left queued are first tried again (doubling per failure). */
export const COMMIT_RETRY_MS = 50;
/** The longest wait between two tries while commits keep failing. */
export const COMMIT_RETRY_MAX_MS = 2000;
/** Writes queued while commits fail at which new calls are refused (`limits.maxQueuedWrites`). */
export const DEFAULT_MAX_QUEUED_WRITES = 5000;
/** While commits keep failing, how often the log says so again. */
const FAILURE_LOG_EVERY_MS = 30_000;

/**
 * `sealed_arguments` of a call whose raw arguments are, byte for byte, the redacted arguments
 * stored in plain text (redaction changed nothing): sealing them would hide nothing, and cost a
 * cipher per call and ~30 bytes more than the text. One byte, shorter than any sealed value.
 */
export const SAME_AS_ARGUMENTS = Buffer.of(0);

/**
 * `sealed_arguments` (or `sealed_edited_arguments`) of a call recorded while the vault had no key
 * (see `vault-state.ts`): the raw value was not kept, and opening it throws `VAULT_KEY_MISMATCH`.
 */
export const NOT_KEPT = Buffer.of(0xff);

/** What `begin` throws for a call whose arguments need sealing while the vault has no key (the executor reads it). */
const VAULT_KEY_MISSING = () =>
  new ToolError({
    code: 'VAULT_KEY_MISSING',
    message:
      "The call's arguments hold secrets, and Toolscope has no vault key to keep them sealed (the data folder's vault.key is missing or unusable), so it was not run.",
  });

/** Seals `raw` for `owner`, or NOT_KEPT when the vault has no key: a commit never fails for want of one. */
const sealOrNotKept = (vault: Vault, raw: string, owner: string) =>
  vault.canSeal() ? vault.seal(raw, owner) : NOT_KEPT;

/** The owner a call's edited arguments are sealed to: not its id, so the two blobs cannot be swapped. */
const editedOwner = (id: string) => `${id}#edited`;

interface PendingWrite {
  batch?: undefined;
  id: string;
  values: TraceRowValues & { sealedEditedArguments: Buffer | null; sealedArguments?: Buffer };
  rawArguments: string;
  /** The row may not exist yet: write it with INSERT … ON CONFLICT (and seal the raw arguments). */
  insert: boolean;
  /** The call's last write: forget its in-flight state once committed. */
  final: boolean;
}

/** The SQLite trace store: a `TraceStore`, and what start-up needs of its rows. */
export interface SqliteTraceStore extends TraceStore {
  /**
   * Ends a call not finished yet as `record` says (its raw arguments are not needed: they could
   * not be opened), by id, leaving its sealed values as they are — the key that sealed them opens
   * them again. Committed when it returns; false when no unfinished call has that id.
   */
  finishUnopened(record: TraceRecord): boolean;
}

/** A request's assistant message, committed with the calls' writes (see `saveAssistantMessage`). */
interface BatchWrite {
  batch: BatchMessage;
}

type QueuedWrite = PendingWrite | BatchWrite;

/** Calls whose start must be on disk before they run: they change the world. */
function mustBeginDurably(record: TraceRecord): boolean {
  return record.sideEffect !== 'none' && record.sideEffect !== 'read';
}

/**
 * The trace store on SQLite. The executor's path is raw better-sqlite3 prepared statements —
 * one INSERT per call and one UPDATE by id — because drizzle's query building would cost more
 * than the statement itself. `get` reads every column by either form of the id (`trace-id.ts`); `list` and `toolStats` are hand-written
 * SQL because they pin their query plans (see their files).
 *
 * Group commit (see `group-commit.ts`): a commit costs far more than the statements in it, so
 * writes are queued and what arrives in the same turn of the event loop (or `commitWindowMs`) is
 * committed in one transaction — at MAX_PENDING_WRITES at once, and before any read:
 * - `begin` of a call with a side effect (`write`, `exec`) and every `update` (a call awaiting
 *   approval) commit before they return, with whatever is queued: no side effect runs
 *   unrecorded and a pending approval survives a restart;
 * - `begin` of a `none`/`read` call is deferred: queued without a commit of its own, so it
 *   commits with the call's finish as one row write (or with an earlier commit, before a read,
 *   or at the latest 100 ms later: a slow call is on disk while it runs, and a crash then leaves
 *   it `interrupted`, not missing). Committing it at the end of its turn made every call two row writes, an INSERT and
 *   an UPDATE that rewrote its status index entries and fired the update triggers;
 * - `finish` is queued and returns a promise that resolves once the record is committed. The
 *   executor resolves a call only then, so a call is answered only once its final record is on
 *   disk: after a crash, every answered call is stored with the status it was answered with.
 *   When the commit fails (after the connection's short busy wait), the promise rejects — the
 *   caller is not held for an unknown time; the executor still answers and logs that the call
 *   was not recorded — and the writes stay queued, retried on the timers from COMMIT_RETRY_MS
 *   doubling to COMMIT_RETRY_MAX_MS; meanwhile a write joins the next retry.
 *
 * Failing soft: reads never wait for the queue. They serve what is committed, committing what
 * is queued first only while commits succeed (`tryFlush`), so a failing database never fails a
 * read. While commits fail, `begin` of a call with a side effect throws at once (the executor
 * then does not run it), and once `maxQueued` writes wait, `admit` refuses new calls. A write
 * failing by itself (a constraint, a trigger) is isolated by halving its batch and set aside
 * (retried every minute, logged, named in `health`): it never holds up the others.
 *
 * The raw arguments are sealed once, when the row is first written. Later writes of the same
 * call skip the vault unless the raw arguments changed or the row is not there (a rejected call
 * finishing without `begin`, or a call begun by a previous process): then they upsert.
 * @example const store = createSqliteTraceStore({ db: openDatabase(file), vault: createVault({ dir }) })
 */
export function createSqliteTraceStore({
  db: sqlite,
  vault,
  timeRangePlan,
  scanWindow,
  timers = systemCommitTimers,
  commitWindowMs = 0,
  principals = createSqlitePrincipalDirectory(sqlite),
  maxQueued = DEFAULT_MAX_QUEUED_WRITES,
  now = Date.now,
}: SqliteTraceStoreOptions): SqliteTraceStore {
  const listTraces = createSqliteListTraces(sqlite, { timeRangePlan, scanWindow, principals });
  const toolStats = createSqliteToolStats(sqlite);
  const navigation = createSqliteTraceNavigation(sqlite);
  const deletion = createSqliteTraceDeletion(sqlite);
  const sessions = createSqliteSessions(sqlite, principals.byRef);
  const upsert = prepareByPosition<PendingWrite['values']>(sqlite, TRACE_WRITE_SQL.upsert);
  const replaysOf = sqlite.prepare(TRACE_READ_SQL.replays).pluck();
  const sealedById = sqlite.prepare(TRACE_READ_SQL.sealed);
  const sessionSeqMax = sqlite.prepare(TRACE_READ_SQL.sessionSeqMax).pluck();
  // Numbers given to calls whose last write is not committed yet count too (see createSessionSequence).
  const sessionSeq = createSessionSequence({
    storedMax: (sessionId) => (sessionSeqMax.get({ sessionId }) as number | null) ?? 0,
  });
  const upsertFinished = prepareByPosition<PendingWrite['values']>(sqlite, TRACE_WRITE_SQL.upsertFinished);
  const update = prepareByPosition<PendingWrite['values']>(sqlite, TRACE_WRITE_SQL.update);
  const updateFinished = prepareByPosition<PendingWrite['values']>(sqlite, TRACE_WRITE_SQL.updateFinished);
  const interrupt = sqlite.prepare<Record<string, unknown>, FinishedCall>(TRACE_WRITE_SQL.interrupt);
  const interruptFinished = sqlite.prepare(TRACE_WRITE_SQL.interruptFinished);
  const addToToolSeries = createAddToToolSeries(sqlite);
  const searchIndexer = createSearchIndexer(sqlite, timers);
  /** The newest seq this store inserted: tells the indexer how far behind it is. */
  let newestSeq = 0;
  const batchMessages = createSqliteBatchMessages(sqlite);
  const imports = createSqliteImportTraces(sqlite, {
    columns: INSERTED,
    addToToolSeries,
    afterWrite: (seq) => searchIndexer.afterCommit(seq),
    // Calls of these sessions made here from now on are numbered after the imported ones.
    afterCommit: (sessionIds) => {
      for (const sessionId of sessionIds) sessionSeq.forget(sessionId);
    },
  });
  const getById = sqlite.prepare(TRACE_READ_SQL.byId);
  // Raw arguments sealed by this process for calls not yet finished: what lets later writes
  // skip the vault. Bounded by the number of calls in flight.
  const sealedInFlight = new IdTable<string>();

  /**
   * Writes one call: by id when this process sealed its current raw arguments, else by upsert.
   * True when it changed a row not yet finished (or new): the call finished now if it has
   * `finished_at`. A row finished already is moved by the triggers; one interrupted is left.
   */
  function writeOne(write: PendingWrite): boolean {
    if (!write.insert && sealedInFlight.get(write.id) === write.rawArguments) {
      if (update.run(write.values).changes === 1) return true;
      if (updateFinished.run(write.values).changes === 1) return false;
    }
    // The trace id is the associated data: a sealed blob copied into another row will not open.
    const sealedArguments =
      write.rawArguments === write.values.arguments
        ? SAME_AS_ARGUMENTS
        : sealOrNotKept(vault, write.rawArguments, write.id);
    // Set on the queued values, not a copy: this is every call's path, and the write is done with after.
    const values = write.values;
    values.sealedArguments = sealedArguments;
    sealedInFlight.set(write.id, write.rawArguments);
    const inserted = upsert.run(values);
    if (inserted.changes === 1) {
      // An upsert that updated leaves lastInsertRowid at an older row's: never past the newest.
      newestSeq = Math.max(newestSeq, Number(inserted.lastInsertRowid));
      return true;
    }
    upsertFinished.run(values);
    return false;
  }

  // The calls finishing in a batch are added to the tool series at its end, in its transaction.
  const writeAll = sqlite.transaction((writes: QueuedWrite[]) => {
    const finished: FinishedCall[] = [];
    for (const write of writes) {
      if (write.batch !== undefined) {
        batchMessages.save(write.batch);
        continue;
      }
      const { tool, status, finishedAt, latencyMs } = write.values;
      if (writeOne(write) && finishedAt !== null) finished.push({ tool, status, finishedAt, latencyMs });
    }
    addToToolSeries(finished);
  });

  const interruptAll = sqlite.transaction((params: { now: number; error: string; code: string }): number => {
    const marked = interrupt.all(params);
    addToToolSeries(marked);
    return marked.length + interruptFinished.run(params).changes;
  });
  /** The last failure of a commit or of a write set aside, for `health`. */
  let lastError: StoreHealth['lastError'] = null;
  let failingSince: number | null = null;
  let failureLoggedAt = Number.NEGATIVE_INFINITY;
  const noteError = (error: unknown) => {
    lastError = { ...describeStoreError(error), at: now() };
  };
  const group = createGroupCommit<QueuedWrite>({
    commit(writes) {
      writeAll(writes);
      searchIndexer.afterCommit(newestSeq);
      for (const done of writes) {
        if (done.batch !== undefined || !done.final) continue;
        sealedInFlight.delete(done.id);
        sessionSeq.done(done.id);
      }
    },
    // A later write of a call replaces a queued one, but must still insert the row if that one had to.
    merge: (queued, next) =>
      queued.batch === undefined && next.batch === undefined && queued.insert && !next.insert
        ? { ...next, insert: true }
        : next,
    timers,
    windowMs: commitWindowMs,
    maxBatch: MAX_PENDING_WRITES,
    retryMs: COMMIT_RETRY_MS,
    maxRetryMs: COMMIT_RETRY_MAX_MS,
    isStoreWide: isStoreWideError,
    onError(error, failures) {
      noteError(error);
      const at = now();
      if (failures === 1) failingSince = at;
      // The first failure of a run, then every FAILURE_LOG_EVERY_MS: not one line per retry.
      if (failures > 1 && at - failureLoggedAt < FAILURE_LOG_EVERY_MS) return;
      failureLoggedAt = at;
      const { code, message } = describeStoreError(error);
      console.error(
        `[toolscope] could not write traces (${code ?? 'error'}: ${message}); ${group.size} writes queued, retrying every ${COMMIT_RETRY_MS}–${COMMIT_RETRY_MAX_MS} ms; reads serve what is committed`,
      );
    },
    onRecover(failures) {
      const seconds = failingSince === null ? 0 : Math.round((now() - failingSince) / 100) / 10;
      failingSince = null;
      failureLoggedAt = Number.NEGATIVE_INFINITY;
      console.error(`[toolscope] trace writes committed again after ${failures} failed tries (${seconds} s)`);
    },
    onSetAside(key, error) {
      noteError(error);
      console.error(
        `[toolscope] the write of ${key} fails by itself and is set aside (retried every ${DEFAULT_SET_ASIDE_RETRY_MS / 1000} s); the other writes go on:`,
        error,
      );
    },
  });
  const flush = () => group.flush();
  /** What reads do first: commit the queue while commits succeed; never throws. */
  const settle = () => group.tryFlush();

  /** Whole seconds until the store next tries to commit (at least 1): a refusal's Retry-After. */
  const retryAfterS = () => Math.max(1, Math.ceil(group.retryDelayMs / 1000));

  function diskFreeBytes(): number | null {
    if (sqlite.memory) return null;
    try {
      const stats = fs.statfsSync(path.dirname(sqlite.name));
      return Number(stats.bavail) * Number(stats.bsize);
    } catch {
      return null;
    }
  }

  function health(): StoreHealth {
    const setAside = group.setAside;
    const degraded = group.failing || setAside > 0;
    let error = lastError;
    if (!group.failing && setAside > 0 && lastError) {
      const named = group.setAsideKeys(3).join(', ');
      error = {
        ...lastError,
        message: `${setAside} write${setAside === 1 ? '' : 's'} set aside, each failing by itself (retried every ${DEFAULT_SET_ASIDE_RETRY_MS / 1000} s): ${named}${setAside > 3 ? ', …' : ''}; last error: ${lastError.message}`,
      };
    }
    return {
      status: degraded ? 'degraded' : 'ok',
      queued: group.size + setAside,
      lastError: error,
      diskFreeBytes: diskFreeBytes(),
    };
  }

  const openKept = (sealed: Buffer, owner: string) => {
    if (sealed.equals(NOT_KEPT)) {
      throw new VaultError('Its raw arguments were not kept: the vault had no key when the call was recorded');
    }
    return vault.open(sealed, owner);
  };
  // By id only, so the sealed values stay as they are; counted in the tool series like any finish.
  const finishUnopenedAll = sqlite.transaction((values: PendingWrite['values']): boolean => {
    if (update.run(values).changes !== 1) return false;
    const { tool, status, finishedAt, latencyMs } = values;
    if (finishedAt !== null) addToToolSeries([{ tool, status, finishedAt, latencyMs }]);
    return true;
  });

  // Edited arguments (rare: an approver changed them) are sealed on every write that has them.
  const sealedValues = (record: TraceRecord): PendingWrite['values'] => {
    const principalRef = record.principal ? principals.refOf(record.principal) : null;
    const values = encodeTraceRecord(
      record,
      sessionSeq.of(record.id, record.sessionId),
      principalRef,
    ) as PendingWrite['values'];
    setStoredForms(values);
    values.sealedEditedArguments =
      record.rawEditedArguments === null
        ? null
        : sealOrNotKept(vault, record.rawEditedArguments, editedOwner(record.id));
    return values;
  };
  const pendingWrite = (record: TraceRecord, insert: boolean, final: boolean): PendingWrite => ({
    id: record.id,
    values: sealedValues(record),
    rawArguments: record.rawArguments,
    insert,
    final,
  });

  return {
    begin(record) {
      const write = pendingWrite(record, true, false);
      // A call whose raw arguments need sealing does not begin while the vault has no key.
      if (write.rawArguments !== write.values.arguments && !vault.canSeal()) throw VAULT_KEY_MISSING();
      if (mustBeginDurably(record)) group.addNow(record.id, write);
      else group.defer(record.id, write);
    },
    // Durable when the promise resolves: the executor waits for it before an approved call runs,
    // so a write set aside (failing by itself) rejects it. A finish set aside resolves: the call
    // is answered either way, and the write is logged and named in `health` (no cost per call).
    update(record) {
      return group.add(record.id, pendingWrite(record, false, false)).then(() => {
        const error = group.setAsideError(record.id);
        if (error !== undefined) throw error;
      });
    },
    finish(record) {
      return group.add(record.id, pendingWrite(record, false, true));
    },
    flush,
    tryFlush: settle,
    health,
    admit() {
      const queued = group.size + group.setAside;
      if (queued < maxQueued || !(group.failing || group.setAside > 0)) return;
      const seconds = retryAfterS();
      const why = lastError ? ` (${lastError.code ?? 'error'}: ${lastError.message})` : '';
      throw new StoreUnavailableError(
        `Toolscope cannot record calls right now: ${queued} trace writes wait for the database${why}, so no new call is run. Try again in ${seconds} s.`,
        seconds,
      );
    },

    get(id) {
      settle();
      const row = getById.get(storedIdForms(id)) as ToolCallRow | undefined;
      return row ? decodeStoredTrace(row, principals.byRef) : null;
    },
    openSealedArguments(id) {
      settle();
      const row = sealedById.get(storedIdForms(id)) as
        | { sealedArguments: Buffer; sealedEditedArguments: Buffer | null; arguments: string | null }
        | undefined;
      // An imported call has no sealed arguments (an empty blob): nothing can run it again.
      if (!row || row.sealedArguments.length === 0) return null;
      const same = row.sealedArguments.equals(SAME_AS_ARGUMENTS) && row.arguments !== null;
      return {
        rawArguments: same ? (row.arguments as string) : openKept(row.sealedArguments, id),
        rawEditedArguments: row.sealedEditedArguments ? openKept(row.sealedEditedArguments, editedOwner(id)) : null,
      };
    },
    finishUnopened(record) {
      flush();
      const done = finishUnopenedAll(sealedValues({ ...record, rawArguments: '', rawEditedArguments: null }));
      sessionSeq.done(record.id);
      return done;
    },

    list(query) {
      settle();
      return listTraces(query);
    },
    toolStats(window) {
      settle();
      return toolStats(window);
    },

    tools() {
      settle();
      return navigation.tools();
    },
    adjacent(id) {
      settle();
      return navigation.adjacent(id);
    },
    replays(id) {
      settle();
      return replaysOf.all({ id }) as string[];
    },

    listSessions(query) {
      settle();
      return sessions.list(query);
    },
    getSession(id) {
      settle();
      return sessions.get(id);
    },
    sessionCalls(id, limit) {
      settle();
      return sessions.calls(id, limit);
    },

    // After a delete, the bounds of the sessions it touched are recomputed at once, once per session.
    delete(id) {
      flush();
      const outcome = deletion.delete(id);
      sessions.refreshStale();
      return outcome;
    },
    deleteSession(sessionId) {
      flush();
      const outcome = deletion.deleteSession(sessionId);
      sessions.refreshStale();
      return outcome;
    },
    prune(options) {
      flush();
      const deleted = deletion.prune(options);
      sessions.refreshStale();
      return deleted;
    },

    // Committed with the request's calls (the first commit after it), never on its own.
    saveAssistantMessage(batch) {
      group.defer(`batch:${batch.batchId}`, { batch });
    },
    assistantMessages(batchIds) {
      settle();
      return batchMessages.read(batchIds);
    },
    importTraces(traces, messages) {
      flush();
      const outcome = imports.importAll(traces, messages);
      // Calls of these sessions made here from now on are numbered after the imported ones.
      if (outcome.ok) for (const trace of traces) if (trace.sessionId !== null) sessionSeq.forget(trace.sessionId);
      return outcome;
    },
    beginImport() {
      flush();
      return imports.begin();
    },

    markInterrupted(now) {
      flush();
      const discarded = imports.discardUnfinished();
      if (discarded > 0) console.warn(`[toolscope] took out ${discarded} calls of an import that never completed`);
      const error = JSON.stringify(INTERRUPTED_ERROR);
      return interruptAll({ now, error, code: INTERRUPTED_ERROR.code });
    },

    // A last commit; what it cannot write is said loudly (it is lost), and the database closes anyway.
    close() {
      const lost = group.close();
      if (lost.length > 0) {
        const { code, message } = describeStoreError(lost[0]?.error);
        const named = lost
          .slice(0, 5)
          .map((write) => write.key)
          .join(', ');
        console.error(
          `[toolscope] closing with ${lost.length} trace writes that could not be committed (${code ?? 'error'}: ${message}); LOST: ${named}${lost.length > 5 ? ', …' : ''}`,
        );
      }
      searchIndexer.stop();
      sealedInFlight.clear();
      sessionSeq.clear();
      sqlite.close();
    },
  };
}
