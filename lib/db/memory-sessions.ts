import { argumentsPreview, containsIgnoringAsciiCase } from './list-query';
import { decodeSessionCursor, encodeSessionCursor } from './session-cursor';
import {
  resolveSessionLimit,
  type SessionCalls,
  type SessionPage,
  type SessionQuery,
  type SessionSummary,
} from './session-types';
import { decodeSessionCall } from './sqlite-sessions';
import type { PrincipalOf, TraceRowValues } from './trace-row';
import { UNFINISHED_STATUSES } from './trace-store';

/** A stored call as the in-memory store holds it: its column values and its `seq`. */
export interface MemoryCall {
  seq: number;
  values: TraceRowValues;
  /** From an imported file. */
  imported: boolean;
}

const unfinished = new Set<string>(UNFINISHED_STATUSES);

/** The in-memory twin of the `sessions` triggers: grouping the calls on each read (tests, benchmarks). */
export function aggregateSessions(calls: Iterable<MemoryCall>): SessionSummary[] {
  const byId = new Map<string, SessionSummary>();
  for (const { values, imported } of calls) {
    if (values.sessionId === null) continue;
    let session = byId.get(values.sessionId);
    if (!session) {
      session = {
        id: values.sessionId,
        firstCallAt: values.createdAt,
        lastCallAt: values.createdAt,
        lastFinishedAt: null,
        calls: 0,
        failed: 0,
        denied: 0,
        running: 0,
        approvalWaitMs: 0,
        // As SESSION_IMPORTED_SQL in sqlite-sessions.ts: the first call's flag.
        imported,
      };
      byId.set(values.sessionId, session);
    }
    session.calls++;
    session.firstCallAt = Math.min(session.firstCallAt, values.createdAt);
    session.lastCallAt = Math.max(session.lastCallAt, values.createdAt);
    if (values.finishedAt !== null) session.lastFinishedAt = Math.max(session.lastFinishedAt ?? 0, values.finishedAt);
    if (values.status === 'failed') session.failed++;
    if (values.status === 'denied') session.denied++;
    if (unfinished.has(values.status)) session.running++;
    session.approvalWaitMs += finishedWait(values.approval);
  }
  return [...byId.values()];
}

function finishedWait(approval: string | null): number {
  if (approval === null) return 0;
  const { requestedAt, decidedAt } = JSON.parse(approval) as { requestedAt: number; decidedAt: number | null };
  return decidedAt === null ? 0 : decidedAt - requestedAt;
}

/** Newest activity first, then id descending: the order of `sessions_last_call_idx` walked backwards. */
const newestFirst = (a: SessionSummary, b: SessionSummary) =>
  b.lastCallAt - a.lastCallAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** A page of `aggregateSessions`, filtered and cut like the SQLite list. */
export function listMemorySessions(calls: Iterable<MemoryCall>, query: SessionQuery = {}): SessionPage {
  const limit = resolveSessionLimit(query.limit);
  const cursor = query.cursor ? decodeSessionCursor(query.cursor) : null;
  const matches = aggregateSessions(calls)
    .filter(
      (session) =>
        (!cursor ||
          session.lastCallAt < cursor.lastCallAt ||
          (session.lastCallAt === cursor.lastCallAt && session.id < cursor.id)) &&
        (!query.text || containsIgnoringAsciiCase(session.id, query.text)) &&
        (!query.failedOnly || session.failed + session.denied > 0),
    )
    .sort(newestFirst);
  const items = matches.slice(0, limit);
  const last = items.at(-1);
  return { items, nextCursor: matches.length > limit && last ? encodeSessionCursor(last) : null };
}

/** One session's calls in `session_seq` order (then `seq`), as the SQLite read returns them. */
export function memorySessionCalls(
  calls: Iterable<MemoryCall>,
  id: string,
  limit: number,
  principalOf?: PrincipalOf,
): SessionCalls {
  const max = Math.max(1, Math.floor(limit));
  const mine = [...calls]
    .filter((call) => call.values.sessionId === id)
    .sort((a, b) => (a.values.sessionSeq ?? 0) - (b.values.sessionSeq ?? 0) || a.seq - b.seq);
  return {
    calls: mine
      .slice(0, max)
      .map(({ values, imported }) =>
        decodeSessionCall(
          { ...values, imported: imported ? 1 : 0, argumentsPreview: argumentsPreview(values.arguments) },
          principalOf,
        ),
      ),
    truncated: mine.length > max,
  };
}
