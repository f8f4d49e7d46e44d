import type { TraceStore } from '../db/trace-store';

/** Between a session's id and the number of its replay: `research-7~replay-2`. */
const REPLAY_SESSION_MARK = '~replay-';

/** The longest session id the API takes (`session_id` of a request, and the session routes). */
const MAX_SESSION_ID = 256;
/** Room kept for the number: up to 6 digits. */
const BASE_MAX = MAX_SESSION_ID - REPLAY_SESSION_MARK.length - 6;
/** Sessions whose last number is kept in memory; the oldest seen is read again from the store if it comes back. */
const MAX_KEPT = 10_000;

const lastNumbers = new WeakMap<TraceStore, Map<string, number>>();

/**
 * The part of a replay session's id before `~replay-<n>`: the session's id, cut to leave room for
 * the number when it is too long for the API (without splitting a surrogate pair).
 */
function replaySessionBase(sessionId: string): string {
  if (sessionId.length <= BASE_MAX) return sessionId;
  const code = sessionId.charCodeAt(BASE_MAX - 1);
  return sessionId.slice(0, code >= 0xd800 && code <= 0xdbff ? BASE_MAX - 1 : BASE_MAX);
}

/** `n` of `<base>~replay-<n>`, or null when `id` is not a replay session of `base`. */
function replayNumberOf(id: string, base: string): number | null {
  if (!id.startsWith(base + REPLAY_SESSION_MARK)) return null;
  const digits = id.slice(base.length + REPLAY_SESSION_MARK.length);
  return /^[1-9][0-9]{0,8}$/.test(digits) ? Number(digits) : null;
}

/** The highest `n` of the sessions `<base>~replay-<n>` the store holds; 0 when none. */
function storedLast(store: TraceStore, base: string): number {
  let last = 0;
  let cursor: string | undefined;
  do {
    const page = store.listSessions({ text: base + REPLAY_SESSION_MARK, limit: 200, cursor });
    for (const session of page.items) last = Math.max(last, replayNumberOf(session.id, base) ?? 0);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return last;
}

/**
 * Reserves the session a replay of a call of `sessionId` records into: `<sessionId>~replay-<n>`,
 * n = 1, 2, … per session, each number given once. The last number is kept in memory, so two
 * replays starting at once (whose writes the store has not committed yet) get two numbers; it is
 * read from the store's sessions the first time a session is replayed in this process.
 * @example reserveReplaySession(store, 'research-7') // 'research-7~replay-1', then '…~replay-2'
 */
export function reserveReplaySession(store: TraceStore, sessionId: string): string {
  let kept = lastNumbers.get(store);
  if (!kept) {
    kept = new Map();
    lastNumbers.set(store, kept);
  }
  const base = replaySessionBase(sessionId);
  const last = kept.get(base) ?? storedLast(store, base);
  // Re-inserted: the map's first key is the session replayed longest ago.
  kept.delete(base);
  if (kept.size >= MAX_KEPT) {
    const oldest = kept.keys().next().value;
    if (oldest !== undefined) kept.delete(oldest);
  }
  kept.set(base, last + 1);
  return `${base}${REPLAY_SESSION_MARK}${last + 1}`;
}
