import type { TraceSummary } from '../db/trace-store';
import { approvalWaitMs } from '../executor/approval-wait';
import type { CallPrincipal, CallStatus } from '../executor/types';

/** A row of `GET /api/v1/traces` as the API sends it (snake_case, ISO times). */
export interface SummaryJson {
  /** Who made the call; absent from servers before principals. */
  principal?: CallPrincipal | null;
  id: string;
  tool_call_id: string;
  session_id: string | null;
  actor: string;
  tool: string;
  status: CallStatus;
  latency_ms: number | null;
  /** Absent from servers before latency meant execution only. */
  approval_wait_ms?: number | null;
  attempts: number;
  error_code: string | null;
  arguments_preview?: string | null;
  flags: { retried: boolean; fell_back: boolean; truncated: boolean; faulted: boolean; replayed: boolean };
  /** Absent from servers before recording mode. */
  session_seq?: number | null;
  served_from?: string | null;
  /** Absent from servers before import. */
  imported?: boolean;
  created_at: string | null;
  finished_at: string | null;
}

/**
 * A list row: the store's summary, its arguments preview read defensively (older servers and
 * stores leave it out); from the API, the wait for approval as the server measured it.
 */
export type ListRow = TraceSummary & { argumentsPreview?: string | null; approvalWaitMs?: number | null };

/**
 * How long a row's call waited for a person (ms) once its wait ended, as the API said or from its
 * approval; null when it never waited or still waits (its status says so).
 */
export function approvalWaitOfRow(row: ListRow): number | null {
  if (row.status === 'awaiting_approval') return null;
  if (row.approvalWaitMs !== undefined) return row.approvalWaitMs;
  return approvalWaitMs(row.approval, row.finishedAt ?? row.approval?.requestedAt ?? 0);
}

const epoch = (iso: string | null) => (iso === null ? null : Date.parse(iso));

/** Turns an API list row back into the store's `TraceSummary`, which the list renders. */
export function summaryFromJson(row: SummaryJson): ListRow {
  return {
    id: row.id,
    toolCallId: row.tool_call_id,
    sessionId: row.session_id,
    actor: row.actor,
    principal: row.principal ?? null,
    tool: row.tool,
    status: row.status,
    createdAt: epoch(row.created_at) ?? 0,
    finishedAt: epoch(row.finished_at),
    latencyMs: row.latency_ms,
    approvalWaitMs: row.approval_wait_ms ?? null,
    attemptCount: row.attempts,
    errorCode: row.error_code,
    argumentsPreview: row.arguments_preview ?? null,
    sessionSeq: row.session_seq ?? null,
    servedFrom: row.served_from ?? null,
    imported: row.imported ?? false,
    flags: {
      retried: row.flags.retried,
      fellBack: row.flags.fell_back,
      truncated: row.flags.truncated,
      faulted: row.flags.faulted,
      replayed: row.flags.replayed,
    },
  };
}
