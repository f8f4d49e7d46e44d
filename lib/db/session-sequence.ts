import { IdTable } from '../executor/id-table';
/** Sessions whose last number is kept in memory; an evicted one is read again when it is next used. */
export const DEFAULT_MAX_SESSIONS = 10_000;

/**
 * Numbers the calls of each session 1, 2, 3… in the order the store first sees them (a call's
 * `begin`, or its only write when it was rejected before it began).
 */
export interface SessionSequence {
  /**
   * The call's number in its session: the one it was given by an earlier write of this process,
   * else the next one. Null without a session.
   */
  of(traceId: string, sessionId: string | null): number | null;
  /** The call's last write is stored: its number no longer needs remembering. */
  done(traceId: string): void;
  /** Numbers were stored for the session from elsewhere (an import): read its last one again when next used. */
  forget(sessionId: string): void;
  clear(): void;
}

/**
 * The session sequence on the hot path: two map lookups a write. The last number of a session is
 * kept in memory, read lazily from the store (`storedMax`, so it carries on after a restart) the
 * first time the session is seen, and bounded to `maxSessions` sessions (the oldest seen is
 * dropped and read again if it comes back). Numbers handed out but not yet stored (a queued
 * write) are remembered per call until `done`, and count when a session is read again.
 * @example const seq = createSessionSequence({ storedMax: (s) => maxStmt.get(s) ?? 0 }); seq.of(id, 'chat-1')
 */
export function createSessionSequence(options: {
  /** The highest number stored for the session; 0 when none. */
  storedMax: (sessionId: string) => number;
  maxSessions?: number;
}): SessionSequence {
  const maxSessions = Math.max(1, options.maxSessions ?? DEFAULT_MAX_SESSIONS);
  const lastBySession = new Map<string, number>();
  const byCall = new IdTable<{ sessionId: string; seq: number }>();

  function lastOf(sessionId: string): number {
    const known = lastBySession.get(sessionId);
    if (known !== undefined) return known;
    let last = options.storedMax(sessionId);
    for (const call of byCall.values()) if (call.sessionId === sessionId && call.seq > last) last = call.seq;
    if (lastBySession.size >= maxSessions) {
      const oldest = lastBySession.keys().next().value;
      if (oldest !== undefined) lastBySession.delete(oldest);
    }
    return last;
  }

  return {
    of(traceId, sessionId) {
      if (sessionId === null) return null;
      const given = byCall.get(traceId);
      if (given) return given.seq;
      const seq = lastOf(sessionId) + 1;
      lastBySession.set(sessionId, seq);
      byCall.set(traceId, { sessionId, seq });
      return seq;
    },
    done(traceId) {
      byCall.delete(traceId);
    },
    forget(sessionId) {
      lastBySession.delete(sessionId);
    },
    clear() {
      lastBySession.clear();
      byCall.clear();
    },
  };
}
