import { type EventHistory, type HistoryEvent, passes } from '../events';
import type { CallStatus } from '../executor/types';
import type { SqliteDatabase } from './open-database';
import { STATUS_INDEXED } from './schema';
import { idTextSql } from './trace-id';

/** Rows one resume reads at most per query: beyond, it answers null (the client gets a reset). */
export const HISTORY_SCAN_ROWS = 20_000;

interface Row {
  id: string;
  tool: string;
  status: CallStatus;
  session_id: string | null;
  created_at: number;
  finished_at: number | null;
  requested_at: number | null;
  decided_at: number | null;
  decision: string | null;
  principal: string | null;
}

const COLUMNS = `${idTextSql('id')} AS id, tool, status, session_id, created_at, finished_at,
  json_extract(approval, '$.requestedAt') AS requested_at,
  json_extract(approval, '$.decidedAt') AS decided_at,
  json_extract(approval, '$.decision') AS decision,
  (SELECT id FROM access_keys WHERE ref = principal_ref) AS principal`;

export interface SqliteEventHistoryOptions {
  /**
   * How long before `since` a call may have begun and still have finished or been decided after
   * it: the longest approval wait and run. Calls still unfinished are found whatever their age.
   */
  lookbackMs: number;
  /** Lets the trace store write its queued calls first. */
  beforeRead?: () => void;
}

/**
 * What a resumed event stream missed, read from `tool_calls`: calls begun and finished, approvals
 * requested and decided, since a time. Three index range reads (`created_at`, `status`), each
 * bounded: calls begun since then; calls begun up to `lookbackMs` before that (finished or decided
 * since); calls begun earlier still unfinished (approval requested since).
 */
export function createSqliteEventHistory(db: SqliteDatabase, options: SqliteEventHistoryOptions): EventHistory {
  const begunSince = db.prepare(
    `SELECT ${COLUMNS} FROM tool_calls WHERE created_at >= ? ORDER BY created_at LIMIT ${HISTORY_SCAN_ROWS + 1}`,
  );
  const begunBefore = db.prepare(
    `SELECT ${COLUMNS} FROM tool_calls WHERE created_at >= ? AND created_at < ?
      ORDER BY created_at DESC LIMIT ${HISTORY_SCAN_ROWS + 1}`,
  );
  const unfinishedBefore = db.prepare(
    `SELECT ${COLUMNS} FROM tool_calls WHERE status IN ('running', 'awaiting_approval') AND ${STATUS_INDEXED} AND created_at < ?`,
  );
  return {
    since(sinceMs, filter, limit) {
      options.beforeRead?.();
      const recent = begunSince.all(sinceMs) as Row[];
      if (recent.length > HISTORY_SCAN_ROWS) return null;
      const earlier = begunBefore.all(sinceMs - options.lookbackMs, sinceMs) as Row[];
      if (earlier.length > HISTORY_SCAN_ROWS) return null;
      const older = unfinishedBefore.all(sinceMs - options.lookbackMs) as Row[];
      const events: HistoryEvent[] = [];
      // Oldest call first, each call's events in order: the stable sort by time keeps that order
      // among events of the same millisecond.
      for (const row of [...older, ...earlier.reverse(), ...recent]) {
        for (const event of eventsOf(row, sinceMs)) {
          if (!passes(event, filter)) continue;
          events.push(event);
          if (events.length > limit) return null;
        }
      }
      return events.sort((a, b) => a.data.at - b.data.at);
    },
  };
}

/** The events of one call at or after `since`, in order. */
function eventsOf(row: Row, since: number): HistoryEvent[] {
  const call = { trace_id: row.id, tool: row.tool };
  const { session_id, principal } = row;
  const found: HistoryEvent[] = [];
  if (row.created_at >= since) {
    const data = { type: 'begin' as const, ...call, status: 'running' as const, session_id, at: row.created_at };
    found.push({ kind: 'trace', data, principal });
  }
  if (row.requested_at !== null && row.requested_at >= since) {
    const data = { type: 'requested' as const, ...call, session_id, at: row.requested_at };
    found.push({ kind: 'approval', data, principal });
  }
  if (row.decided_at !== null && row.decided_at >= since && row.decision) {
    const decision = row.decision as 'approved' | 'denied' | 'expired' | 'cancelled';
    const data = { type: 'decided' as const, ...call, session_id, decision, at: row.decided_at };
    found.push({ kind: 'approval', data, principal });
  }
  if (row.finished_at !== null && row.finished_at >= since) {
    const data = { type: 'finish' as const, ...call, status: row.status, session_id, at: row.finished_at };
    found.push({ kind: 'trace', data, principal });
  }
  return found;
}
