import { eq, getTableColumns, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import type { TraceRecord } from '../executor/types';
import type { SqliteDatabase } from './open-database';
import { type ToolCallRow, toolCalls } from './schema';
import { createSqliteListTraces, type ListTracesOptions } from './sqlite-list-traces';
import { createSqliteToolStats } from './sqlite-tool-stats';
import { createSqliteTraceDeletion } from './sqlite-trace-deletion';
import { createSqliteTraceNavigation } from './sqlite-trace-navigation';
import { decodeTraceRecord, encodeTraceRecord, type TraceRowValues } from './trace-row';
import { INTERRUPTED_ERROR, type TraceStore } from './trace-store';
import type { Vault } from './vault';

export interface SqliteTraceStoreOptions {
  /** An open, migrated database (see `openDatabase`); the store closes it on `close()`. */
  db: SqliteDatabase;
  /** Seals the raw arguments; the same vault (key) must open them later. */
  vault: Vault;
  /** See `ListTracesOptions`; leave unset outside tests. */
  timeRangePlan?: ListTracesOptions['timeRangePlan'];
  /** Rows a text search or combined filter reads at most per page (see DEFAULT_SCAN_WINDOW). */
  scanWindow?: number;
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
] as const satisfies readonly (keyof ToolCallRow)[];
const IDENTITY_KEYS = [
  'id',
  'toolCallId',
  'sessionId',
  'actor',
  'tool',
  'createdAt',
  'sealedArguments',
] as const satisfies readonly (keyof ToolCallRow)[];

// [SQL column, named parameter]: names come from the drizzle schema, parameters are its keys.
const columns = getTableColumns(toolCalls);
const MUTABLE = MUTABLE_KEYS.map((key) => [columns[key].name, key] as const);
const ALL = [...IDENTITY_KEYS.map((key) => [columns[key].name, key] as const), ...MUTABLE];

/**
 * The statements of the write path; exported for the query-plan tests. Neither writes over a row
 * marked `interrupted`: that mark comes from a newer process (see `markInterrupted`), and an
 * older process still finishing the call must not bring it back to life; its write is dropped.
 */
export const TRACE_WRITE_SQL = {
  upsert: `INSERT INTO tool_calls (${ALL.map(([column]) => column).join(', ')})
    VALUES (${ALL.map(([, param]) => `@${param}`).join(', ')})
    ON CONFLICT (id) DO UPDATE SET ${ALL.filter(([column]) => column !== 'id')
      .map(([column]) => `${column} = excluded.${column}`)
      .join(', ')}
    WHERE tool_calls.status != 'interrupted'`,
  update: `UPDATE tool_calls SET ${MUTABLE.map(([column, param]) => `${column} = @${param}`).join(', ')}
    WHERE id = @id AND status != 'interrupted'`,
  interrupt: `UPDATE tool_calls SET status = 'interrupted', finished_at = @now, error = @error, error_code = @code
    WHERE status = 'running'`,
} as const;

/** How long a deferred write may wait for the next commit. */
export const FLUSH_DELAY_MS = 5;
/** Deferred writes that force a commit when reached, so a burst never queues without bound. */
export const MAX_PENDING_WRITES = 256;

interface PendingWrite {
  id: string;
  values: TraceRowValues;
  rawArguments: string;
  /** The row may not exist yet: write it with INSERT … ON CONFLICT (and seal the raw arguments). */
  insert: boolean;
  /** The call's last write: forget its in-flight state once committed. */
  final: boolean;
}

/** Calls whose start must be on disk before they run: they change the world. */
function mustBeginDurably(record: TraceRecord): boolean {
  return record.sideEffect !== 'none' && record.sideEffect !== 'read';
}

/**
 * The trace store on SQLite. The executor's path is raw better-sqlite3 prepared statements —
 * one INSERT per call and one UPDATE by id — because drizzle's query building would cost more
 * than the statement itself. `get` goes through drizzle; `list` and `toolStats` are hand-written
 * SQL because they pin their query plans (see their files).
 *
 * Group commit: on this kind of machine a commit costs far more than the statements in it, so
 * writes are queued and committed together, at most FLUSH_DELAY_MS later:
 * - `begin` of a call with a side effect (`write`, `exec`) and every `update` (a call awaiting
 *   approval) commit at once, with whatever is queued: no side effect runs unrecorded and a
 *   pending approval survives a restart;
 * - `begin` of a `none`/`read` call and every `finish` are queued; the queue is committed after
 *   FLUSH_DELAY_MS, at MAX_PENDING_WRITES, before any read, and by `flush`/`close`.
 * A crash can therefore lose the last few milliseconds of finished results; a call with a side
 * effect whose finish was lost shows as `interrupted` after the restart.
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
}: SqliteTraceStoreOptions): TraceStore {
  const db = drizzle({ client: sqlite });
  const listTraces = createSqliteListTraces(sqlite, { timeRangePlan, scanWindow });
  const toolStats = createSqliteToolStats(sqlite);
  const navigation = createSqliteTraceNavigation(sqlite);
  const deletion = createSqliteTraceDeletion(sqlite);
  const upsert = sqlite.prepare(TRACE_WRITE_SQL.upsert);
  const update = sqlite.prepare(TRACE_WRITE_SQL.update);
  const interrupt = sqlite.prepare(TRACE_WRITE_SQL.interrupt);
  const getById = db
    .select()
    .from(toolCalls)
    .where(eq(toolCalls.id, sql.placeholder('id')))
    .prepare();
  // Raw arguments sealed by this process for calls not yet finished: what lets later writes
  // skip the vault. Bounded by the number of calls in flight.
  const sealedInFlight = new Map<string, string>();
  const pending = new Map<string, PendingWrite>();
  let timer: ReturnType<typeof setTimeout> | null = null;

  const commit = sqlite.transaction((writes: PendingWrite[]) => {
    for (const write of writes) {
      if (
        !write.insert &&
        sealedInFlight.get(write.id) === write.rawArguments &&
        update.run(write.values).changes === 1
      )
        continue;
      // The trace id is the associated data: a sealed blob copied into another row will not open.
      upsert.run({ ...write.values, sealedArguments: vault.seal(write.rawArguments, write.id) });
      sealedInFlight.set(write.id, write.rawArguments);
    }
  });

  /** Commits every queued write in one transaction; on failure they stay queued and it throws. */
  function flush(): void {
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    if (pending.size === 0) return;
    const writes = [...pending.values()];
    pending.clear();
    try {
      commit(writes);
    } catch (error) {
      for (const write of writes) if (!pending.has(write.id)) pending.set(write.id, write);
      schedule(1000);
      throw error;
    }
    for (const write of writes) if (write.final) sealedInFlight.delete(write.id);
  }

  function schedule(delay = FLUSH_DELAY_MS): void {
    if (timer) return;
    timer = setTimeout(() => {
      timer = null;
      try {
        flush();
      } catch (error) {
        console.error('[toolscope] could not write traces; retrying in 1 s:', error);
      }
    }, delay);
    timer.unref?.();
  }

  function enqueue(record: TraceRecord, options: { insert: boolean; final: boolean; durable: boolean }): void {
    const queued = pending.get(record.id);
    pending.set(record.id, {
      id: record.id,
      values: encodeTraceRecord(record),
      rawArguments: record.rawArguments,
      insert: options.insert || (queued?.insert ?? false),
      final: options.final,
    });
    if (options.durable || pending.size >= MAX_PENDING_WRITES) flush();
    else schedule();
  }

  return {
    begin(record) {
      enqueue(record, { insert: true, final: false, durable: mustBeginDurably(record) });
    },
    update(record) {
      enqueue(record, { insert: false, final: false, durable: true });
    },
    finish(record) {
      enqueue(record, { insert: false, final: true, durable: false });
    },
    flush,

    get(id) {
      flush();
      const row = getById.get({ id });
      if (!row) return null;
      return decodeTraceRecord(row, vault.open(row.sealedArguments, row.id));
    },

    list(query) {
      flush();
      return listTraces(query);
    },
    toolStats(window) {
      flush();
      return toolStats(window);
    },

    tools() {
      flush();
      return navigation.tools();
    },
    adjacent(id) {
      flush();
      return navigation.adjacent(id);
    },

    delete(id) {
      flush();
      return deletion.delete(id);
    },
    deleteSession(sessionId) {
      flush();
      return deletion.deleteSession(sessionId);
    },
    prune(options) {
      flush();
      return deletion.prune(options);
    },

    markInterrupted(now) {
      flush();
      const error = JSON.stringify(INTERRUPTED_ERROR);
      return interrupt.run({ now, error, code: INTERRUPTED_ERROR.code }).changes;
    },

    close() {
      flush();
      sealedInFlight.clear();
      sqlite.close();
    },
  };
}
