import type { SessionSummary } from '../db/session-types';
import type { TraceStore } from '../db/trace-store';

/** A session that replays calls of another: one call's replay (`<session>~replay-<n>`) or a whole session's. */
export interface ReplayingSession {
  session: SessionSummary;
  kind: 'call' | 'session';
}

/** The first calls of the session whose replays are read: a session replay replays each of them. */
const FIRST_CALLS = 3;
/** Replays read at most (each a point read), and sessions listed by name at most. */
const MAX_REPLAYS = 100;
const MAX_NAMED = 100;

/**
 * The sessions that replay calls of session `sessionId`, newest activity first.
 * 1. By name: `<session>~replay-<n>`, where the replay of one call records.
 * 2. By lineage: the sessions of the replays of its first calls — a session replay replays every
 *    call, so it holds a replay of the first.
 * Empty for an unknown session.
 */
export function sessionsReplaying(store: TraceStore, sessionId: string): ReplayingSession[] {
  const found = new Map<string, ReplayingSession>();
  const prefix = `${sessionId}~replay-`;
  let cursor: string | undefined;
  do {
    const page = store.listSessions({ text: prefix, limit: 100, cursor });
    for (const session of page.items) {
      if (session.id.startsWith(prefix) && /^\d+$/.test(session.id.slice(prefix.length))) {
        found.set(session.id, { session, kind: 'call' });
      }
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor && found.size < MAX_NAMED);

  const replays = store
    .sessionCalls(sessionId, FIRST_CALLS)
    .calls.flatMap((call) => store.replays(call.id))
    .slice(0, MAX_REPLAYS);
  for (const id of replays) {
    const replayed = store.get(id)?.sessionId;
    if (!replayed || replayed === sessionId || found.has(replayed)) continue;
    const session = store.getSession(replayed);
    if (session) found.set(replayed, { session, kind: replayed.startsWith(prefix) ? 'call' : 'session' });
  }
  return [...found.values()].sort((a, b) => b.session.lastCallAt - a.session.lastCallAt);
}
