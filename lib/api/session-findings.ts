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
 * Loop detection over a session's calls (in session order):
 * 1. repeated_call: calls grouped by tool and canonical arguments, groups of at least
 *    REPEATED_CALL_THRESHOLD;
 * 2. repeated_failure: failed calls grouped by tool, groups of at least REPEATED_FAILURE_THRESHOLD.
 * Each kind in the order its group's first call came; a call may be in one finding of each kind.
 */
export function findSessionLoops(calls: readonly SessionCall[]): SessionFinding[] {
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
