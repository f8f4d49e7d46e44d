import type {
  ApprovalRecord,
  CallPrincipal,
  CallStatus,
  ToolErrorData,
  TraceRecord,
  TraceSink,
} from '../executor/types';
import type { SessionCalls, SessionPage, SessionQuery, SessionSummary } from './session-types';

/**
 * A trace as reads return it: everything but the sealed arguments, plus its place in its session
 * (`sessionSeq`: 1, 2, 3… in the order the session's calls began, assigned by the store; null
 * without a session). A live snapshot of a running call (`executor.inFlight`) has no `sessionSeq`.
 */
export type StoredTrace = Omit<TraceRecord, 'rawArguments' | 'rawEditedArguments'> & {
  sessionSeq?: number | null;
  /** The call came from an imported file: read-only (never replayed or cancelled), no sealed arguments. */
  imported?: boolean;
};

/** What the model said with a request's tool calls (`assistant_message`), stored once per batch. */
export interface AssistantMessage {
  /** Redacted; cut to `ASSISTANT_TEXT_MAX_BYTES` (then `truncated`). */
  text: string | null;
  model: string | null;
  truncated: boolean;
}

/** A batch's row: the message of the request whose calls share the batch id. */
export interface BatchMessage {
  batchId: string;
  sessionId: string | null;
  /** Epoch ms. */
  createdAt: number;
  message: AssistantMessage;
}

/** What `TraceStore.importTraces` did: `exists` names a trace id already stored (nothing was written). */
export type ImportOutcome = { ok: true; imported: number } | { ok: false; exists: string };

/** What one `ImportWriter.write` did: `exists` names a trace id already stored (nothing of the chunk was written). */
export type ImportStep = { ok: true; written: number } | { ok: false; exists: string };

/**
 * An import written a chunk at a time (`TraceStore.beginImport`), each chunk one short
 * transaction, so that a large file never holds the event loop or the database for long. Its
 * calls can be read as they are written; they stay only once `commit` ran: a writer given up
 * (`discard`) and a process stopped before `commit` (the store takes them out when it next
 * starts: `markInterrupted`) leave none of them.
 */
export interface ImportWriter {
  /** The first of `ids` already stored, or null (reads only). */
  firstStored(ids: readonly string[]): string | null;
  /**
   * Writes `traces[from]` on, as `importTraces` writes them, in one transaction that stops once
   * `budgetMs` have passed (after one trace at least).
   */
  write(traces: readonly StoredTrace[], from: number, budgetMs: number): ImportStep;
  /** Writes `messages[from]` on (a batch id already stored is kept as it is) within `budgetMs`; how many it went through. */
  writeMessages(messages: readonly BatchMessage[], from: number, budgetMs: number): number;
  /** Completes the import: what it wrote stays. One statement. */
  commit(): void;
  /** After `commit`: drops up to `limit` of the import's bookkeeping rows; true once none is left. */
  tidy(limit: number): boolean;
  /** Instead of `commit`: takes out up to `limit` of the calls and messages written (one transaction); true once none is left. */
  discard(limit: number): boolean;
}

/** A call's arguments as received, opened from the vault (see `TraceStore.openSealedArguments`). */
export interface SealedArguments {
  rawArguments: string;
  rawEditedArguments: string | null;
}

/** A row of the traces list: what the list shows without loading the whole trace. */
export interface TraceSummary {
  id: string;
  toolCallId: string;
  sessionId: string | null;
  actor: string;
  /** Who made the call (verified); null for calls recorded before principals. */
  principal: CallPrincipal | null;
  tool: string;
  status: CallStatus;
  createdAt: number;
  finishedAt: number | null;
  /** Execution only: from arrival to answer less the wait for approval (see `executionMs`). */
  latencyMs: number | null;
  /**
   * When the call began waiting for approval and when it was decided (null while it waits); null
   * when it never waited. Absent where a reader does not load it.
   */
  approval?: Pick<ApprovalRecord, 'requestedAt' | 'decidedAt'> | null;
  attemptCount: number;
  errorCode: string | null;
  flags: TraceRecord['flags'];
  /** The start (200 characters) of the redacted arguments as JSON, to tell calls apart; null when none. */
  argumentsPreview: string | null;
  /** The call's place in its session (see `StoredTrace`); null without a session. */
  sessionSeq: number | null;
  /** The recorded call this one was served from (recording mode); null when the tool ran. */
  servedFrom: string | null;
  /** The call came from an imported file. */
  imported: boolean;
}

export interface TraceQuery {
  tool?: string;
  status?: CallStatus;
  sessionId?: string;
  /** Epoch ms, inclusive. */
  from?: number;
  /** Epoch ms, exclusive. */
  to?: number;
  /**
   * Case-insensitive (ASCII) substring of the trace id, the tool call id, the error code, the
   * redacted arguments, the output, stdout or stderr, or a prefix of the session id. Never the
   * raw arguments. Reads a bounded window of rows per page (see `TracePage.partial`).
   */
  text?: string;
  /**
   * Only calls with (true) or without (false) an injected fault. No index narrows it (few calls
   * are faulted): the store reads a bounded window of rows per page, as for a text search.
   */
  faulted?: boolean;
  /**
   * Only the calls of this principal (an agent reads its own). No index narrows it: a bounded
   * window of rows per page, as for a text search.
   */
  principalId?: string;
  /** 1..500, default 50. */
  limit?: number;
  /** Opaque; from a previous page's `nextCursor`. Newest first. */
  cursor?: string;
}

export interface TracePage {
  items: TraceSummary[];
  /** Null on the last page. */
  nextCursor: string | null;
  /**
   * True when the store stopped at its scan window before the page was full (a text search or
   * combined filters over many calls): older matches may exist, and `nextCursor` goes on.
   */
  partial: boolean;
  /**
   * How many calls match the filter, when the store knows it without counting (no filter, or a
   * tool filter alone: read from the per-tool totals); otherwise null.
   */
  total: number | null;
}

export interface ToolStats {
  tool: string;
  calls: number;
  failures: number;
  p50LatencyMs: number | null;
  p95LatencyMs: number | null;
  lastCalledAt: number | null;
}

/** The neighbours of a call in recording order, for previous / next navigation; null at either end. */
export interface AdjacentTraces {
  /** The call recorded just after it. */
  newer: string | null;
  /** The call recorded just before it. */
  older: string | null;
}

/** What `TraceStore.delete` did: `running` when the call is still running or awaiting approval (kept). */
export type DeleteOutcome = 'deleted' | 'not_found' | 'running';

/** What `TraceStore.deleteSession` did. */
export interface SessionDeletion {
  deleted: number;
  /** Calls of the session still running or awaiting approval, which were kept. */
  skippedRunning: number;
}

/**
 * What `TraceStore.prune` may delete: finished calls created before `createdBefore`, or beyond
 * the newest `keepNewest` calls (all calls count toward it, unfinished ones included).
 */
export interface PruneOptions {
  /** Epoch ms, exclusive. */
  createdBefore?: number;
  keepNewest?: number;
  /** Deletes at most this many calls, oldest first: a caller keeps each transaction short. */
  limit: number;
}

/** Calls a deletion never removes: something is still going to write to them. */
export const UNFINISHED_STATUSES = ['running', 'awaiting_approval'] as const satisfies readonly CallStatus[];

/**
 * Where traces live: the executor's sink plus the reads the API and UI need.
 * Implemented by the SQLite store and the in-memory store; both pass one shared test suite.
 */
export interface TraceStore extends TraceSink {
  /**
   * Records the call's final record. Stores that commit later (SQLite's group commit) return a
   * promise that resolves once the record is committed — what the executor waits for before it
   * answers — and rejects when the commit failed (the record stays queued and is retried);
   * stores that write at once return nothing. Readable through this store's reads as soon as it
   * returns while commits succeed; once committed while they fail.
   */
  finish(record: TraceRecord): void | Promise<void>;
  /** The record as stored, redacted: nothing sealed is opened to read a trace. Null when unknown. */
  get(id: string): StoredTrace | null;
  /**
   * The call's sealed arguments, opened: exactly what it received (and what an approver edited
   * in). Only for running a call again — replay, approval after a restart; nothing opened here
   * may leave the server. Null when unknown.
   */
  openSealedArguments(id: string): SealedArguments | null;
  list(query?: TraceQuery): TracePage;
  /** Per-tool call counts, failures and latency percentiles over the last `window` calls of each tool. */
  toolStats(window?: number): ToolStats[];
  /** Every tool name that has calls in the store (registered or not), sorted. */
  tools(): string[];
  /** The calls recorded just before and after `id`; both null when `id` is unknown. O(log n). */
  adjacent(id: string): AdjacentTraces;
  /** The traces that replay `id`, oldest first (from the indexed `replay_of`). */
  replays(id: string): string[];
  /**
   * Sessions, newest activity first (`lastCallAt`, then id, descending), from the trigger-kept
   * aggregate. Throws `InvalidCursorError` for a cursor it did not hand out.
   */
  listSessions(query?: SessionQuery): SessionPage;
  /** One session's aggregate; null when it has no calls. */
  getSession(id: string): SessionSummary | null;
  /** The first `limit` calls of a session in `session_seq` order, with what its view draws. */
  sessionCalls(id: string, limit: number): SessionCalls;
  /** Deletes one call, unless it is still running or awaiting approval. */
  delete(id: string): DeleteOutcome;
  /** Deletes every call of a session except those still running or awaiting approval. */
  deleteSession(sessionId: string): SessionDeletion;
  /** Deletes up to `limit` finished calls past the retention bounds, oldest first; returns how many. */
  prune(options: PruneOptions): number;
  /**
   * Marks calls left `running` by a previous process as `interrupted` (finishedAt = now); returns
   * how many. Calls `awaiting_approval` are left alone: pending approvals survive a restart. The
   * calls of an import a previous process left unfinished (see `beginImport`) are taken out.
   */
  markInterrupted(now: number): number;
  /**
   * Stores the message a request's calls came with, keyed by their batch id (once per request
   * that has one: a request without a message writes nothing).
   */
  saveAssistantMessage(batch: BatchMessage): void;
  /** The messages of the given batches that have one, by batch id. */
  assistantMessages(batchIds: readonly string[]): Map<string, AssistantMessage>;
  /**
   * Stores traces from an exported file, marked imported, with no sealed arguments
   * (`openSealedArguments` answers null for them), and their batches' messages: all in one
   * transaction, or nothing when any of the trace ids is already stored.
   */
  importTraces(traces: readonly StoredTrace[], messages: readonly BatchMessage[]): ImportOutcome;
  /** Starts an import written a chunk at a time (see `ImportWriter`); stores without it import with `importTraces`. */
  beginImport?(): ImportWriter;
  /**
   * Commits everything still queued (stores that defer writes) now; throws when the commit fails
   * (the writes stay queued). Reads do not wait for it: see `tryFlush`.
   */
  flush(): void;
  /**
   * Commits what is queued unless commits are failing (then the store's retry timer has it);
   * never throws. Every read does it first, so a read sees the calls queued before it while the
   * database is healthy, and what is committed while it is not.
   */
  tryFlush(): void;
  /** Whether the store is writing: see `StoreHealth`. Cheap, but reads the disk's free space. */
  health(): StoreHealth;
  /**
   * Throws `StoreUnavailableError` (`store-faults.ts`) when a new call could not be recorded:
   * commits are failing (or writes are set aside) and the queue holds the most writes it may.
   * Asked before a call starts, so nothing runs that the store cannot record. Cheap.
   */
  admit(): void;
  /**
   * Tries a last commit of everything queued, then releases the database; writes it cannot
   * commit are logged as lost. Never hangs on a failing database, and does not throw for it.
   */
  close(): void;
}

/**
 * How the store is doing: `degraded` while its commits fail (writes wait in memory, retried) or
 * writes that fail by themselves are set aside; `ok` again after a commit that emptied the queue.
 */
export interface StoreHealth {
  status: 'ok' | 'degraded';
  /** Writes not yet committed: queued, and set aside. */
  queued: number;
  /** The last failure (a commit's, or a write set aside, then naming it); kept after recovery; null when none. */
  lastError: { message: string; code: string | null; at: number } | null;
  /** Free space for the database's folder (statfs), in bytes; null in memory or when unknown. */
  diskFreeBytes: number | null;
}

/**
 * Thrown by `TraceStore.list` when `query.cursor` is not a cursor the store handed out; the API
 * answers 400. Cursors are opaque: clients pass back `nextCursor` unchanged. Recognise it with
 * `isInvalidCursorError`, not `instanceof`.
 */
export class InvalidCursorError extends Error {
  override readonly name = 'InvalidCursorError';
  readonly code = 'INVALID_CURSOR';

  constructor(readonly cursor: string) {
    super('Invalid cursor: pass back the nextCursor of a previous page unchanged');
  }
}

/**
 * Whether `error` is an invalid cursor from `TraceStore.list`. Matches on `code`, never
 * `instanceof`: the production build can bundle this module into several chunks, each with its
 * own copy of the class, so an error thrown by one copy is not an instance of another.
 */
export function isInvalidCursorError(error: unknown): error is { code: 'INVALID_CURSOR'; message: string } {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'INVALID_CURSOR';
}

/** The error `markInterrupted` records on the calls a previous process left running. */
export const INTERRUPTED_ERROR = {
  code: 'INTERRUPTED',
  message: 'Toolscope stopped before the call finished',
  retryable: true,
  kind: 'internal',
} as const satisfies ToolErrorData;
