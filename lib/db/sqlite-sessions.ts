import type { ApprovalRecord } from '../executor/types';
import { decodeAttempts, type StoredBytes } from './compact-columns';
import { ARGUMENTS_PREVIEW_CHARS, likeContains } from './list-query';
import type { SqliteDatabase } from './open-database';
import { decodeSessionCursor, encodeSessionCursor } from './session-cursor';
import { REFRESH_STALE_SESSIONS_SQL } from './session-triggers';
import {
  resolveSessionLimit,
  type SessionCall,
  type SessionCalls,
  type SessionPage,
  type SessionQuery,
  type SessionSummary,
} from './session-types';
import { decodeTraceSummary, type PrincipalOf, type TraceSummaryRow } from './trace-row';

/**
 * Whether a session came from an import: its first call's `tool_calls.imported` flag, one probe of
 * the session index per row.
 */
export const SESSION_IMPORTED_SQL =
  '(SELECT imported FROM tool_calls t WHERE t.session_id = sessions.id ORDER BY t.seq LIMIT 1)';

const SESSION_COLUMNS = `id, first_call_at AS firstCallAt, last_call_at AS lastCallAt,
  last_finished_at AS lastFinishedAt, calls, failed, denied, running, approval_wait_ms AS approvalWaitMs,
  ${SESSION_IMPORTED_SQL} AS imported`;

// The index holds whole seconds (see `sessions.lastCallSecond`): SQLite walks it backwards and
// sorts only the sessions of one second at a time ("TEMP B-TREE FOR LAST 2 TERMS OF ORDER BY").
const listSql = (where: string[]) =>
  `SELECT ${SESSION_COLUMNS} FROM sessions ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY last_call_second DESC, last_call_at DESC, id DESC LIMIT @limit`;

/** The statements of the sessions reads; exported for the query-plan tests. */
export const SESSION_READ_SQL = {
  refresh: REFRESH_STALE_SESSIONS_SQL,
  anyStale: 'SELECT 1 FROM sessions WHERE stale = 1 LIMIT 1',
  one: `SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = @id`,
  // Newest activity first by walking sessions_last_call_second_idx backwards; filters are checked per row.
  list: (filters: { cursor: boolean; text: boolean; failedOnly: boolean }) =>
    listSql([
      ...(filters.cursor ? ['last_call_second <= @second', '(last_call_at, id) < (@at, @id)'] : []),
      ...(filters.text ? ["id LIKE @pattern ESCAPE '\\'"] : []),
      ...(filters.failedOnly ? ['failed + denied > 0'] : []),
    ]),
  calls: `SELECT id, tool_call_id AS toolCallId, session_id AS sessionId, actor, tool, status,
      created_at AS createdAt, finished_at AS finishedAt, latency_ms AS latencyMs, attempt_count AS attemptCount,
      error_code AS errorCode, retried, fell_back AS fellBack, truncated, faulted, replayed,
      session_seq AS sessionSeq, served_from AS servedFrom, imported, principal_ref AS principalRef,
      substr(arguments, 1, ${ARGUMENTS_PREVIEW_CHARS}) AS argumentsPreview,
      arguments, batch_id AS batchId, approval, attempts, error
    FROM tool_calls WHERE session_id = @id ORDER BY session_seq, seq LIMIT @limit`,
} as const;

type SessionRow = Omit<SessionSummary, 'imported'> & { imported: 0 | 1 };
type CallRow = TraceSummaryRow & {
  arguments: string | null;
  batchId: string | null;
  approval: string | null;
  attempts: StoredBytes;
  error: string | null;
};

const decodeSession = (row: SessionRow): SessionSummary => ({ ...row, imported: row.imported === 1 });

/** Builds the SQLite reads of the `sessions` aggregate and of one session's calls. */
export function createSqliteSessions(sqlite: SqliteDatabase, principalOf?: PrincipalOf) {
  const refresh = sqlite.prepare(SESSION_READ_SQL.refresh);
  const anyStale = sqlite.prepare(SESSION_READ_SQL.anyStale).pluck();
  const one = sqlite.prepare(SESSION_READ_SQL.one);
  const calls = sqlite.prepare(SESSION_READ_SQL.calls);
  const lists = new Map<string, ReturnType<SqliteDatabase['prepare']>>();
  const listStatement = (filters: { cursor: boolean; text: boolean; failedOnly: boolean }) => {
    const key = `${filters.cursor}${filters.text}${filters.failedOnly}`;
    let statement = lists.get(key);
    if (!statement) {
      statement = sqlite.prepare(SESSION_READ_SQL.list(filters));
      lists.set(key, statement);
    }
    return statement;
  };

  /** Brings the bounds of sessions a delete touched up to date (a no-op read when none is). */
  function refreshStale(): void {
    if (anyStale.get() !== undefined) refresh.run();
  }

  return {
    refreshStale,

    list(query: SessionQuery = {}): SessionPage {
      const limit = resolveSessionLimit(query.limit);
      const cursor = query.cursor ? decodeSessionCursor(query.cursor) : null;
      const text = query.text ? query.text : null;
      refreshStale();
      const rows = listStatement({ cursor: cursor !== null, text: text !== null, failedOnly: !!query.failedOnly }).all({
        limit: limit + 1,
        ...(cursor ? { at: cursor.lastCallAt, id: cursor.id, second: Math.floor(cursor.lastCallAt / 1000) } : {}),
        ...(text ? { pattern: likeContains(text) } : {}),
      }) as SessionRow[];
      const items = rows.slice(0, limit).map(decodeSession);
      const last = items.at(-1);
      return { items, nextCursor: rows.length > limit && last ? encodeSessionCursor(last) : null };
    },

    get(id: string): SessionSummary | null {
      refreshStale();
      const row = one.get({ id }) as SessionRow | undefined;
      return row ? decodeSession(row) : null;
    },

    calls(id: string, limit: number): SessionCalls {
      const max = Math.max(1, Math.floor(limit));
      const rows = calls.all({ id, limit: max + 1 }) as CallRow[];
      return {
        calls: rows.slice(0, max).map((row) => decodeSessionCall(row, principalOf)),
        truncated: rows.length > max,
      };
    },
  };
}

/** A call row of a session as the session view reads it. */
export function decodeSessionCall(row: CallRow, principalOf?: PrincipalOf): SessionCall {
  return {
    ...decodeTraceSummary(row, principalOf),
    batchId: row.batchId,
    approval: row.approval === null ? null : (JSON.parse(row.approval) as ApprovalRecord),
    attempts: decodeAttempts(row.attempts, row.tool, row.error),
    arguments: row.arguments,
  };
}
