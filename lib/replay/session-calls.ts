import type { TraceStore, TraceSummary } from '../db/trace-store';

/** The most calls of one session that replay, compare or a recording reads. */
export const MAX_SESSION_CALLS = 2000;

/** A session larger than `MAX_SESSION_CALLS`; callers turn it into a 400 naming their field. */
export class SessionTooLargeError extends Error {
  override readonly name = 'SessionTooLargeError';
  readonly code = 'SESSION_TOO_LARGE';
  constructor(readonly sessionId: string) {
    super(`the session "${sessionId}" has more than ${MAX_SESSION_CALLS} calls`);
  }
}

export function isSessionTooLargeError(error: unknown): error is SessionTooLargeError {
  return error instanceof Error && (error as Partial<SessionTooLargeError>).code === 'SESSION_TOO_LARGE';
}

/**
 * Every call of a session in the order the calls began: by `sessionSeq`, and calls recorded
 * before there was one (null) by the order the store wrote them, ahead of numbered ones. Empty for
 * an unknown session; throws `SessionTooLargeError` past `MAX_SESSION_CALLS`.
 */
export function sessionCalls(store: TraceStore, sessionId: string): TraceSummary[] {
  const newestFirst: TraceSummary[] = [];
  let cursor: string | undefined;
  do {
    const page = store.list({ sessionId, limit: 500, cursor });
    newestFirst.push(...page.items);
    if (newestFirst.length > MAX_SESSION_CALLS) throw new SessionTooLargeError(sessionId);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  const written = newestFirst.reverse();
  const position = new Map(written.map((call, index) => [call.id, index]));
  // Stable: calls without a number keep the store's order, ahead of the numbered ones.
  return written.sort(
    (a, b) => (a.sessionSeq ?? 0) - (b.sessionSeq ?? 0) || (position.get(a.id) ?? 0) - (position.get(b.id) ?? 0),
  );
}
