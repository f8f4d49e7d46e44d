import type { SessionCall } from '../db/session-types';

/** The same tool with the same arguments this many times in a session is flagged: the loop an agent falls into. */
export const REPEATED_CALL_THRESHOLD = 3;
/** One tool failing this many times in a session is flagged. */
export const REPEATED_FAILURE_THRESHOLD = 3;

/** A pattern worth a look in a session: what repeated, how often, and which calls. */
export interface SessionFinding {
  kind: 'repeated_call' | 'repeated_failure';
  tool: string;
  count: number;
  /** In session order. */
  traceIds: string[];
}

/**
 * The arguments as a key that ignores the order of object keys: `{"a":1,"b":2}` and
 * `{"b":2,"a":1}` are the same call. Arguments are the redacted ones: two calls differing only
 * in a secret look the same, which is what the model sees too.
 */
export function canonicalArguments(text: string | null): string {
  if (text === null) return 'null';
  try {
    return JSON.stringify(sortKeys(JSON.parse(text)));
  } catch {
    return text;
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}

/**
 * The calls the agent made: in a session that holds calls of its own, the replays are a person's
 * (written into the recorded session before replays got sessions of their own, migration 0018, or
 * imported from such a Toolscope) and are left out. A session of replays only (a session replay)
 * is looked at whole: its calls rerun the agent's.
 */
function agentCalls(calls: readonly SessionCall[]): readonly SessionCall[] {
  const own = calls.filter((call) => !call.flags.replayed);
  return own.length > 0 ? own : calls;
}

/**
 * Loop detection over a session's calls (in session order), manual replays left out (`agentCalls`):
 * 1. repeated_call: calls grouped by tool and canonical arguments, groups of at least
 *    REPEATED_CALL_THRESHOLD;
 * 2. repeated_failure: failed calls grouped by tool, groups of at least REPEATED_FAILURE_THRESHOLD.
 * Each kind in the order its group's first call came; a call may be in one finding of each kind.
 */
export function findSessionLoops(all: readonly SessionCall[]): SessionFinding[] {
  const calls = agentCalls(all);
  const same = new Map<string, SessionFinding>();
  const failing = new Map<string, SessionFinding>();
  const add = (groups: Map<string, SessionFinding>, key: string, kind: SessionFinding['kind'], call: SessionCall) => {
    let finding = groups.get(key);
    if (!finding) {
      finding = { kind, tool: call.tool, count: 0, traceIds: [] };
      groups.set(key, finding);
    }
    finding.count++;
    finding.traceIds.push(call.id);
  };
  for (const call of calls) {
    add(same, `${call.tool}\u0000${canonicalArguments(call.arguments)}`, 'repeated_call', call);
    if (call.status === 'failed') add(failing, call.tool, 'repeated_failure', call);
  }
  return [
    ...[...same.values()].filter((finding) => finding.count >= REPEATED_CALL_THRESHOLD),
    ...[...failing.values()].filter((finding) => finding.count >= REPEATED_FAILURE_THRESHOLD),
  ];
}

/** How the view heads each kind of finding, and what one finding of that kind is. */
export const FINDING_KINDS: Record<SessionFinding['kind'], { title: string; one: string; many: string }> = {
  repeated_call: { title: 'Repeated calls', one: 'group', many: 'groups' },
  repeated_failure: { title: 'Failing tools', one: 'tool', many: 'tools' },
};

/** The findings of one kind: one line in the view ("Repeated calls: 34 groups"), the list behind it. */
export interface FindingGroup<F> {
  kind: SessionFinding['kind'];
  /** "Repeated calls: 34 groups". */
  label: string;
  findings: F[];
  /** The calls counted over its findings (a call may be in one finding of each kind). */
  calls: number;
}

/**
 * Findings (the API's or the store's shape) grouped by kind, kinds in `FINDING_KINDS` order and
 * each kind's findings in the order they came: a session of 2,000 calls shows two lines, not 100.
 */
export function groupFindings<F extends { kind: SessionFinding['kind']; count: number }>(
  findings: readonly F[],
): FindingGroup<F>[] {
  return (Object.keys(FINDING_KINDS) as SessionFinding['kind'][]).flatMap((kind) => {
    const ofKind = findings.filter((finding) => finding.kind === kind);
    if (ofKind.length === 0) return [];
    const { title, one, many } = FINDING_KINDS[kind];
    return [
      {
        kind,
        label: `${title}: ${ofKind.length} ${ofKind.length === 1 ? one : many}`,
        findings: ofKind,
        calls: ofKind.reduce((sum, finding) => sum + finding.count, 0),
      },
    ];
  });
}
