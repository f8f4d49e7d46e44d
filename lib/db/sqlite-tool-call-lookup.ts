import type { CallPrincipal } from '../executor/types';
import { storedForm } from './coded-columns';
import type { SqliteDatabase } from './open-database';
import { createSqlitePrincipalDirectory } from './principal-directory';
import { idTextSql } from './trace-id';

/** What makes a call the same call again: its session, the model's id for it, and who sends it. */
export interface ToolCallKey {
  sessionId: string;
  toolCallId: string;
  /** Null for calls made with no principal (Toolscope's own). */
  principal: CallPrincipal | null;
}

/** The trace id of the newest call recorded under a key; null when there is none. */
export type ToolCallLookup = (key: ToolCallKey) => string | null;

/**
 * One point query on `tool_calls_session_tool_call_idx` (session, stored tool call id): both
 * stored forms of the id, as rows written before migration 0014 hold it plainly. Calls that did
 * not run as themselves are not the call again: replays, imported calls, calls served from a
 * recording.
 */
export const TOOL_CALL_LOOKUP_SQL = `SELECT ${idTextSql('id')} AS id, principal_ref AS principalRef, seq FROM tool_calls
  WHERE session_id = @sessionId AND tool_call_id_stored IN (@coded, @plain)
    AND replay_of IS NULL AND imported = 0 AND served_from IS NULL`;

/**
 * Finds a call by its key among what is committed (the executor answers a call only once its
 * record is; a call still in flight is the caller's to know of). The principal is compared by the
 * number the row holds for it (`principal_ref`), so two agents reusing `call_1` in one session
 * never find each other's call.
 */
export function createSqliteToolCallLookup(db: SqliteDatabase): ToolCallLookup {
  const select = db.prepare(TOOL_CALL_LOOKUP_SQL);
  const principals = createSqlitePrincipalDirectory(db);
  return ({ sessionId, toolCallId, principal }) => {
    const rows = select.all({
      sessionId,
      coded: storedForm('tool_call_id', toolCallId),
      plain: toolCallId,
    }) as { id: string; principalRef: number | null; seq: number }[];
    if (rows.length === 0) return null;
    const ref = principal ? principals.refOfId(principal.id) : null;
    // Sorted here, not in SQL: ORDER BY seq would draw the planner to the session index and a scan.
    let newest: (typeof rows)[number] | undefined;
    for (const row of rows) if (row.principalRef === ref && (!newest || row.seq > newest.seq)) newest = row;
    return newest?.id ?? null;
  };
}
