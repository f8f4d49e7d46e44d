import { eq, getTableColumns, sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/better-sqlite3';
import type { TraceRecord } from '../executor/types';
import type { SqliteDatabase } from './open-database';
import { type ToolCallRow, toolCalls } from './schema';
import { createSqliteListTraces, type ListTracesOptions } from './sqlite-list-traces';
import { createSqliteToolStats } from './sqlite-tool-stats';
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

/** The statements of the write path; exported for the query-plan tests. */
export const TRACE_WRITE_SQL = {
  upsert: `INSERT INTO tool_calls (${ALL.map(([column]) => column).join(', ')})
    VALUES (${ALL.map(([, param]) => `@${param}`).join(', ')})
    ON CONFLICT (id) DO UPDATE SET ${ALL.filter(([column]) => column !== 'id')
      .map(([column]) => `${column} = excluded.${column}`)
      .join(', ')}`,
  update: `UPDATE tool_calls SET ${MUTABLE.map(([column, param]) => `${column} = @${param}`).join(', ')} WHERE id = @id`,
  interrupt: `UPDATE tool_calls SET status = 'interrupted', finished_at = @now, error = @error, error_code = @code
    WHERE status = 'running'`,
} as const;

/**
 * The trace store on SQLite. The executor's path is raw better-sqlite3 prepared statements —
 * `begin` one INSERT, `update`/`finish` one UPDATE by id — because drizzle's query building
 * would cost more than the statement itself. `get` goes through drizzle; `list` and `toolStats`
 * are hand-written SQL because they pin their query plans (see their files).
 *
 * The raw arguments are sealed once, at `begin`. Later writes of the same call skip the vault
 * and the sealed column unless the raw arguments changed or the row is not there (a rejected
 * call finishing without `begin`, or a call begun by a previous process): then they upsert.
 * @example const store = createSqliteTraceStore({ db: openDatabase(file), vault: createVault({ dir }) })
 */
export function createSqliteTraceStore({ db: sqlite, vault, timeRangePlan }: SqliteTraceStoreOptions): TraceStore {
  const db = drizzle({ client: sqlite });
  const listTraces = createSqliteListTraces(sqlite, { timeRangePlan });
  const toolStats = createSqliteToolStats(sqlite);
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

  function write(record: TraceRecord): void {
    const values = encodeTraceRecord(record);
    if (sealedInFlight.get(record.id) === record.rawArguments && update.run(values).changes === 1) return;
    upsert.run(withSealed(values, record));
    sealedInFlight.set(record.id, record.rawArguments);
  }

  function withSealed(values: TraceRowValues, record: TraceRecord) {
    // The trace id is the associated data: a sealed blob copied into another row will not open.
    return { ...values, sealedArguments: vault.seal(record.rawArguments, record.id) };
  }

  return {
    begin(record) {
      upsert.run(withSealed(encodeTraceRecord(record), record));
      sealedInFlight.set(record.id, record.rawArguments);
    },
    update: write,
    finish(record) {
      write(record);
      sealedInFlight.delete(record.id);
    },

    get(id) {
      const row = getById.get({ id });
      if (!row) return null;
      return decodeTraceRecord(row, vault.open(row.sealedArguments, row.id));
    },

    list: listTraces,
    toolStats,

    markInterrupted(now) {
      const error = JSON.stringify(INTERRUPTED_ERROR);
      return interrupt.run({ now, error, code: INTERRUPTED_ERROR.code }).changes;
    },

    close() {
      sealedInFlight.clear();
      sqlite.close();
    },
  };
}
