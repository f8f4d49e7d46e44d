import type { StoredTrace, TraceStore, TraceSummary } from '../db/trace-store';
import { compareCalls } from './compare-calls';
import { sessionCalls } from './session-calls';

/** One call of a session beside its counterpart in the other; null where one has no counterpart. */
export interface SessionCallPair {
  original: TraceSummary | null;
  replay: TraceSummary | null;
  /** Status or error code changed; true when a side is missing. */
  outcomeChanged: boolean;
  /** Output, stdout, stderr or exit code changed; true when a side is missing. */
  outputChanged: boolean;
}

interface Call {
  summary: TraceSummary;
  trace: StoredTrace;
}

function callsOf(store: TraceStore, sessionId: string): Call[] {
  const calls: Call[] = [];
  for (const summary of sessionCalls(store, sessionId)) {
    const trace = store.get(summary.id);
    if (trace) calls.push({ summary, trace });
  }
  return calls;
}

/**
 * Pairs the calls of session `sessionId` (the original) with those of `otherId` (its replay, or
 * any other session); null when either has no calls.
 * 1. A call of the other session that replays one of the original (`replay_of`) is its pair.
 * 2. The calls left on either side pair by position, each in the order the calls began.
 * 3. Pairs follow the original's order; calls of the other session left over come last.
 * Throws `SessionTooLargeError` past MAX_SESSION_CALLS.
 */
export function compareSessions(store: TraceStore, sessionId: string, otherId: string): SessionCallPair[] | null {
  const originals = callsOf(store, sessionId);
  const others = callsOf(store, otherId);
  if (originals.length === 0 || others.length === 0) return null;
  const replayOf = new Map<string, Call>();
  for (const other of others) {
    const of = other.trace.replayOf;
    if (of !== null && !replayOf.has(of)) replayOf.set(of, other);
  }
  const paired = new Set<Call>();
  const slots: { original: Call; replay: Call | null }[] = originals.map((original) => {
    const replay = replayOf.get(original.trace.id) ?? null;
    if (replay) paired.add(replay);
    return { original, replay };
  });
  const leftOver = others.filter((other) => !paired.has(other));
  for (const slot of slots) if (!slot.replay) slot.replay = leftOver.shift() ?? null;
  return [
    ...slots.map(({ original, replay }) => pairOf(original, replay)),
    ...leftOver.map((replay) => pairOf(null, replay)),
  ];
}

function pairOf(original: Call | null, replay: Call | null): SessionCallPair {
  if (!original || !replay) {
    return {
      original: original?.summary ?? null,
      replay: replay?.summary ?? null,
      outcomeChanged: true,
      outputChanged: true,
    };
  }
  const changes = compareCalls(original.trace, replay.trace);
  return {
    original: original.summary,
    replay: replay.summary,
    outcomeChanged: changes.outcome,
    outputChanged: changes.output,
  };
}
