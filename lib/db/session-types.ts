import type { ApprovalRecord, Attempt } from '../executor/types';
import type { TraceSummary } from './trace-store';

/** One session (agent run) as the sessions list shows it: the `sessions` aggregate's row. */
export interface SessionSummary {
  id: string;
  /** Epoch ms: the earliest call's start. */
  firstCallAt: number;
  /** Epoch ms: the latest call's start; the list is newest first by it. */
  lastCallAt: number;
  /** Epoch ms: the latest finish; null while no call has finished. */
  lastFinishedAt: number | null;
  calls: number;
  /** Calls with status `failed`. */
  failed: number;
  /** Calls with status `denied`. */
  denied: number;
  /** Calls running or awaiting approval now. */
  running: number;
  /** Summed waits for an approval decision that ended (ms); a wait still open is not in it. */
  approvalWaitMs: number;
  /** The session came from an import (see `SESSION_IMPORTED_SQL`). */
  imported: boolean;
}

export interface SessionQuery {
  /** Case-insensitive (ASCII) substring of the session id. */
  text?: string;
  /** Only sessions with a failed or denied call. */
  failedOnly?: boolean;
  /** 1..200, default 50. */
  limit?: number;
  /** Opaque; from a previous page's `nextCursor`. Newest activity first. */
  cursor?: string;
}

export interface SessionPage {
  items: SessionSummary[];
  /** Null on the last page. */
  nextCursor: string | null;
}

/** A call of a session as the session view needs it: the list summary plus its timing parts. */
export interface SessionCall extends TraceSummary {
  batchId: string | null;
  approval: ApprovalRecord | null;
  attempts: Attempt[];
  /** The redacted arguments as stored (JSON text); null when none. For loop detection. */
  arguments: string | null;
}

export interface SessionCalls {
  /** In `session_seq` order (the order the calls began). */
  calls: SessionCall[];
  /** More calls exist beyond `limit`. */
  truncated: boolean;
}

export const DEFAULT_SESSION_LIMIT = 50;
export const MAX_SESSION_LIMIT = 200;
/** Calls a session view reads at most. */
export const MAX_SESSION_CALLS = 2_000;

/** Clamps a requested sessions page size to 1..200; a missing one is 50. */
export function resolveSessionLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_SESSION_LIMIT;
  return Math.min(MAX_SESSION_LIMIT, Math.max(1, Math.floor(limit)));
}
