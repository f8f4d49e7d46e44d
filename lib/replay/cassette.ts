import { createHash } from 'node:crypto';
import type { StoredTrace, TraceStore } from '../db/trace-store';
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
 * The key of a call: its tool and its redacted arguments as canonical JSON (sorted keys), hashed
 * so that a cassette kept between requests holds no argument values.
 */
function keyOf(tool: string, args: unknown): string {
  return createHash('sha256').update(tool).update('\0').update(canonicalJson(args)).digest('base64url');
}

/**
 * Reads the recorded session `sessionId` into a cassette; null when it has no finished call to
 * serve. Nothing sealed is opened: calls are matched on their arguments as the trace shows them,
 * redacted, so recording mode tells nothing about a masked value (a right guess of a recorded
 * secret and a wrong one are served alike; the output served is the redacted one recorded).
 * 1. The session's finished calls in the order they began whose arguments parsed (imported calls
 *    left out), keyed by tool and redacted arguments; the nth identical call of the serving
 *    session gets the nth of them, any later one the last.
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
    if (UNFINISHED.has(call.status) || call.imported) continue;
    const trace = store.get(call.id);
    if (!trace || trace.stages.find((stage) => stage.name === 'parse')?.status === 'failed') continue;
    const key = keyOf(call.tool, trace.arguments);
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
