import { createHash } from 'node:crypto';
import type { StoredTrace, TraceStore } from '../db/trace-store';
import { parseArguments } from '../executor/parse-arguments';
import type { RecordedResult } from '../executor/recording';
import { canonicalJson } from './canonical-json';
import { sessionCalls } from './session-calls';

/**
 * A recorded session as recording mode plays it back: its calls indexed by tool and arguments,
 * with how many of each have been served.
 */
export interface Cassette {
  /** The recorded session. */
  readonly sessionId: string;
  /** The newest call of the recorded session when it was read: a newer one means it changed. */
  readonly newestCallId: string;
  /** See `Recording.take`. */
  take(tool: string, args: unknown): RecordedResult | null;
}

/** Calls that cannot be served: they have no outcome yet. */
const UNFINISHED = new Set(['running', 'awaiting_approval']);

/**
 * The key of a call: its tool and its arguments as canonical JSON (sorted keys), hashed so that a
 * cassette kept between requests holds no argument values (they may be secrets).
 */
function keyOf(tool: string, args: unknown): string {
  return createHash('sha256').update(tool).update('\0').update(canonicalJson(args)).digest('base64url');
}

/**
 * Reads the recorded session `sessionId` into a cassette; null when it has no finished call to
 * serve. Each recorded call's sealed arguments are opened once, here, and only their hash is kept.
 * 1. The session's finished calls in the order they began, keyed by tool and arguments; the nth
 *    identical call of the serving session gets the nth of them, any later one the last.
 * 2. When the serving session (`servingSessionId`) was already served from this recording (by an
 *    earlier request, or before a restart), its served calls count: the next identical call gets
 *    the next recording, not the first again.
 * Throws `SessionTooLargeError` for a session past MAX_SESSION_CALLS.
 */
export function loadCassette(store: TraceStore, sessionId: string, servingSessionId: string | null): Cassette | null {
  const recorded = sessionCalls(store, sessionId);
  const byKey = new Map<string, string[]>();
  const placeOf = new Map<string, { key: string; index: number }>();
  for (const call of recorded) {
    if (UNFINISHED.has(call.status)) continue;
    const sealed = store.openSealedArguments(call.id);
    const parsed = sealed && parseArguments(sealed.rawArguments);
    if (!parsed?.ok) continue;
    const key = keyOf(call.tool, parsed.value);
    const ids = byKey.get(key) ?? [];
    placeOf.set(call.id, { key, index: ids.length });
    ids.push(call.id);
    byKey.set(key, ids);
  }
  // The newest by write order, as a kept cassette's check reads it (`openRecording`).
  const newest = store.list({ sessionId, limit: 1 }).items[0];
  if (byKey.size === 0 || !newest) return null;

  const served = new Map<string, number>();
  if (servingSessionId !== null && servingSessionId !== sessionId) {
    for (const call of sessionCalls(store, servingSessionId)) {
      const place = call.servedFrom === null ? undefined : placeOf.get(call.servedFrom);
      if (place) served.set(place.key, Math.max(served.get(place.key) ?? 0, place.index + 1));
    }
  }

  return {
    sessionId,
    newestCallId: newest.id,
    take(tool, args) {
      const key = keyOf(tool, args);
      const ids = byKey.get(key);
      if (!ids) return null;
      const n = served.get(key) ?? 0;
      served.set(key, n + 1);
      const trace = store.get(ids[Math.min(n, ids.length - 1)] as string);
      return trace ? recordedResult(trace) : null;
    },
  };
}

function recordedResult(trace: StoredTrace): RecordedResult {
  return {
    traceId: trace.id,
    output: trace.output,
    stdout: trace.stdout,
    stderr: trace.stderr,
    exitCode: trace.exitCode,
    error: trace.error,
    modelMessage: trace.modelMessage,
    modelTruncation: trace.modelTruncation,
    truncated: trace.flags.truncated,
  };
}
