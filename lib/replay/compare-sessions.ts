import type { StoredTrace, TraceStore, TraceSummary } from '../db/trace-store';
import { isPending } from './call-verdict';
import { canonicalJson } from './canonical-json';
import { compareCalls } from './compare-calls';
import { sessionCalls } from './session-calls';
import { type IgnoredChange, type IgnoreRules, ignoreRules } from './volatile-paths';

/** How a pair was found. */
export type PairMatch = 'replay_of' | 'same_original' | 'tool_call_id' | 'arguments';

/**
 * What the pair says: `same` / `changed` once both calls have ended, `pending` while either runs
 * or awaits approval (or, alone in A, while B is a replay still running), `only_in_a` /
 * `only_in_b` for a call that found no pair.
 */
export type PairVerdict = 'same' | 'changed' | 'pending' | 'only_in_a' | 'only_in_b';

/** One call of a session beside its pair in the other; null on the side where it has none. */
export interface SessionCallPair {
  original: TraceSummary | null;
  replay: TraceSummary | null;
  /** How the two were paired; null for a call without a pair. */
  matchedBy: PairMatch | null;
  verdict: PairVerdict;
  /** Status or error code changed; true for a call without a pair, false while pending. */
  outcomeChanged: boolean;
  /** Output (volatile paths aside), stdout, stderr or exit code changed; true for a call without a pair, false while pending. */
  outputChanged: boolean;
  /** The output's differences at volatile paths, left out of `outputChanged`. */
  ignored: IgnoredChange[];
}

interface Call {
  /** Its place in its session, in the order the calls began. */
  index: number;
  summary: TraceSummary;
  trace: StoredTrace;
}

function callsOf(store: TraceStore, sessionId: string): Call[] {
  const calls: Call[] = [];
  for (const summary of sessionCalls(store, sessionId)) {
    const trace = store.get(summary.id);
    if (trace) calls.push({ index: calls.length, summary, trace });
  }
  return calls;
}

const DEFAULT_RULES = ignoreRules();

/**
 * Pairs the calls of session `sessionId` (A, usually the original) with those of `otherId` (B,
 * its replay or any other session), by identity, never by position alone; null when either has
 * no calls.
 * 1. A call and its replay (`replay_of`, either way round), or two replays of one call.
 * 2. Then, among the calls left, the same tool call id of the same tool.
 * 3. Then the same tool with the same arguments (redacted, compared as data): the first such
 *    call left in A with the first in B, the second with the second, and so on.
 * 4. A call left without a pair stays alone: "only in A" / "only in B" — or, while B is a replay
 *    still running (every call of B a replay, one still unfinished), "pending": not replayed yet.
 * Pairs follow A's order; a call only in B comes right after the pair whose B call precedes it.
 * Each pair is judged by `compareCalls` with `rules` (volatile paths). Throws
 * `SessionTooLargeError` past MAX_SESSION_CALLS.
 */
export function compareSessions(
  store: TraceStore,
  sessionId: string,
  otherId: string,
  rules: IgnoreRules = DEFAULT_RULES,
): SessionCallPair[] | null {
  const as = callsOf(store, sessionId);
  const bs = callsOf(store, otherId);
  if (as.length === 0 || bs.length === 0) return null;
  const pairOf = new Map<Call, { b: Call; by: PairMatch }>();
  const taken = new Set<Call>();
  const pair = (a: Call, b: Call, by: PairMatch) => {
    pairOf.set(a, { b, by });
    taken.add(b);
  };
  const left = () => ({ a: as.filter((a) => !pairOf.has(a)), b: bs.filter((b) => !taken.has(b)) });

  // 1. Lineage: B replays A, A replays B, or both replay one call.
  const groupBy = (calls: Call[], keyOf: (call: Call) => string | null) => {
    const found = new Map<string, Call[]>();
    for (const call of calls) {
      const key = keyOf(call);
      if (key === null) continue;
      const list = found.get(key);
      if (list) list.push(call);
      else found.set(key, [call]);
    }
    return found;
  };
  const replaysInB = groupBy(bs, (b) => b.trace.replayOf);
  const bById = new Map(bs.map((b) => [b.trace.id, b]));
  const free = (b: Call | undefined) => (b && !taken.has(b) ? b : undefined);
  for (const a of as) {
    const replay = replaysInB.get(a.trace.id)?.find((b) => !taken.has(b));
    if (replay) {
      pair(a, replay, 'replay_of');
      continue;
    }
    const original = a.trace.replayOf === null ? undefined : free(bById.get(a.trace.replayOf));
    if (original) {
      pair(a, original, 'replay_of');
      continue;
    }
    const sibling =
      a.trace.replayOf === null ? undefined : replaysInB.get(a.trace.replayOf)?.find((b) => !taken.has(b));
    if (sibling) pair(a, sibling, 'same_original');
  }

  // 2 and 3: the same key, first with first, in order.
  const pairByKey = (by: PairMatch, keyOf: (call: Call) => string) => {
    const { a: leftA, b: leftB } = left();
    const queues = groupBy(leftB, keyOf);
    for (const a of leftA) {
      const b = queues.get(keyOf(a))?.shift();
      if (b) pair(a, b, by);
    }
  };
  pairByKey('tool_call_id', (call) => `${call.trace.tool}\u0000${call.trace.toolCallId}`);
  pairByKey('arguments', (call) => `${call.trace.tool}\u0000${canonicalJson(call.trace.arguments)}`);

  // 4. In A's order; each call only in B after the row holding the B call before it.
  const rows: { a: Call | null; b: Call | null; by: PairMatch | null }[] = as.map((a) => {
    const found = pairOf.get(a);
    return { a, b: found?.b ?? null, by: found?.by ?? null };
  });
  for (const b of bs) {
    if (taken.has(b)) continue;
    let at = -1;
    for (let i = 0; i < rows.length; i++) {
      const other = rows[i]!.b;
      if (other && other.index < b.index && (at < 0 || other.index > rows[at]!.b!.index)) at = i;
    }
    if (at < 0) {
      // Nothing of B before it: ahead of the first pair, or last when nothing is paired.
      const first = rows.findIndex((row) => row.b !== null);
      rows.splice(first < 0 ? rows.length : first, 0, { a: null, b, by: null });
    } else {
      rows.splice(at + 1, 0, { a: null, b, by: null });
    }
  }
  const replaying = bs.every((b) => b.trace.replayOf !== null) && bs.some((b) => isPending(b.trace.status));
  return rows.map(({ a, b, by }) => judge(a, b, by, rules, replaying));
}

function judge(
  a: Call | null,
  b: Call | null,
  by: PairMatch | null,
  rules: IgnoreRules,
  replaying: boolean,
): SessionCallPair {
  if (a && !b && replaying) {
    return {
      original: a.summary,
      replay: null,
      matchedBy: null,
      verdict: 'pending',
      outcomeChanged: false,
      outputChanged: false,
      ignored: [],
    };
  }
  if (!a || !b) {
    return {
      original: a?.summary ?? null,
      replay: b?.summary ?? null,
      matchedBy: null,
      verdict: a ? 'only_in_a' : 'only_in_b',
      outcomeChanged: true,
      outputChanged: true,
      ignored: [],
    };
  }
  const changes = compareCalls(a.trace, b.trace, rules);
  return {
    original: a.summary,
    replay: b.summary,
    matchedBy: by,
    verdict: changes.pending ? 'pending' : changes.outcome || changes.output ? 'changed' : 'same',
    outcomeChanged: changes.outcome,
    outputChanged: changes.output,
    ignored: changes.ignored,
  };
}
