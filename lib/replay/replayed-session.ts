import type { SessionCall } from '../db/session-types';
import type { TraceStore } from '../db/trace-store';

/**
 * The session a replay session replays: the session of the call its first call replays — for the
 * replay of one call (`<session>~replay-<n>`) and of a whole session alike. Two point reads. Null
 * for a session holding any call that is not a replay, and when the original is gone.
 */
export function replayedSession(
  store: Pick<TraceStore, 'get'>,
  sessionId: string,
  calls: readonly SessionCall[],
): string | null {
  const first = calls[0];
  if (!first || !calls.every((call) => call.flags.replayed)) return null;
  const originalId = store.get(first.id)?.replayOf;
  const originalSession = originalId ? store.get(originalId)?.sessionId : null;
  return originalSession && originalSession !== sessionId ? originalSession : null;
}
