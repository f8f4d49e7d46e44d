import { describe, expect, it } from 'vitest';
import type { SessionCall } from '../db/session-types';
import {
  canonicalArguments,
  findSessionLoops,
  groupFindings,
  REPEATED_CALL_THRESHOLD,
  REPEATED_FAILURE_THRESHOLD,
} from './session-findings';
import { sessionTotals } from './session-json';

const base = Date.UTC(2026, 10, 30, 12);
let n = 0;
const sessionCall = (overrides: Partial<SessionCall>): SessionCall => ({
  id: `t${++n}`,
  toolCallId: `c${n}`,
  sessionId: 's',
  actor: 'api',
  principal: null,
  tool: 'search',
  status: 'succeeded',
  createdAt: base + n,
  finishedAt: base + n + 5,
  latencyMs: 5,
  attemptCount: 1,
  errorCode: null,
  flags: { retried: false, fellBack: false, truncated: false, faulted: false, replayed: false },
  argumentsPreview: null,
  sessionSeq: n,
  servedFrom: null,
  batchId: null,
  imported: false,
  approval: null,
  attempts: [],
  arguments: '{"q":"x"}',
  ...overrides,
});

/** A session's loop findings and time totals, from its calls (pure: no store, no HTTP). */
describe('loop detection', () => {
  it('flags the same tool with the same arguments, whatever their key order, at the threshold', () => {
    expect(REPEATED_CALL_THRESHOLD).toBe(3);
    const a = sessionCall({ arguments: '{"q":"x","page":{"n":1,"size":5}}' });
    const b = sessionCall({ arguments: '{"page":{"size":5,"n":1},"q":"x"}' });
    const other = sessionCall({ arguments: '{"q":"y"}' });
    const otherTool = sessionCall({ tool: 'fetch', arguments: '{"q":"x","page":{"n":1,"size":5}}' });
    expect(findSessionLoops([a, b, other, otherTool])).toEqual([]);
    const c = sessionCall({ arguments: '{"q":"x","page":{"n":1,"size":5}}' });
    expect(findSessionLoops([a, b, other, otherTool, c])).toEqual([
      { kind: 'repeated_call', tool: 'search', count: 3, traceIds: [a.id, b.id, c.id] },
    ]);
    expect(canonicalArguments('not json')).toBe('not json');
    expect(canonicalArguments(null)).toBe('null');
  });

  it('flags one tool failing at the threshold, whatever the arguments', () => {
    expect(REPEATED_FAILURE_THRESHOLD).toBe(3);
    const fails = [1, 2, 3].map((i) => sessionCall({ tool: 'fetch', status: 'failed', arguments: `{"u":${i}}` }));
    const denied = sessionCall({ tool: 'fetch', status: 'denied' });
    expect(findSessionLoops([fails[0] as SessionCall, fails[1] as SessionCall, denied])).toEqual([]);
    expect(findSessionLoops([...fails, denied])).toEqual([
      { kind: 'repeated_failure', tool: 'fetch', count: 3, traceIds: fails.map((f) => f.id) },
    ]);
  });

  it("leaves out a person's replays among the agent's calls, and looks at a session of replays whole", () => {
    const replayed = { retried: false, fellBack: false, truncated: false, faulted: false, replayed: true };
    const agent = sessionCall({ status: 'failed' });
    const replays = [1, 2, 3].map(() => sessionCall({ actor: 'replay', status: 'failed', flags: replayed }));
    expect(findSessionLoops([agent, ...replays])).toEqual([]);
    expect(findSessionLoops(replays)).toEqual([
      { kind: 'repeated_call', tool: 'search', count: 3, traceIds: replays.map((r) => r.id) },
      { kind: 'repeated_failure', tool: 'search', count: 3, traceIds: replays.map((r) => r.id) },
    ]);
  });

  it('sums first attempts as executing, later attempts and the gaps before them as retrying', () => {
    const attempt = (number: number, startedAt: number, durationMs: number) => ({
      number,
      tool: 'fetch',
      fallback: false,
      startedAt,
      durationMs,
      outcome: 'error' as const,
      error: null,
      backoffMs: null,
      fault: null,
    });
    const retried = sessionCall({ attempts: [attempt(1, 1, 10), attempt(2, 111, 20), attempt(3, 331, 5)] });
    const plain = sessionCall({ attempts: [attempt(1, 0, 7)] });
    const waited = sessionCall({
      approval: {
        rule: 'ask',
        requestedAt: base,
        expiresAt: null,
        decision: 'approved',
        by: 'api',
        decidedAt: base + 400,
        reason: null,
        ruleCreated: null,
      },
    });
    expect(sessionTotals([retried, plain, waited], base + 1000)).toEqual({
      executing_ms: 17,
      retrying_ms: 100 + 20 + 200 + 5,
      approval_wait_ms: 400,
    });
  });
});

describe('grouping findings', () => {
  it('gives one line per kind with its count, the findings behind it in order', () => {
    const repeated = (tool: string, ids: string[]) => ({
      kind: 'repeated_call' as const,
      tool,
      count: ids.length,
      trace_ids: ids,
    });
    const findings = [
      repeated('read_file', ['a', 'b', 'c']),
      { kind: 'repeated_failure' as const, tool: 'fetch', count: 3, trace_ids: ['x', 'y', 'z'] },
      repeated('search', ['d', 'e', 'f', 'g']),
      ...Array.from({ length: 32 }, (_, i) => repeated(`t${i}`, [`${i}a`, `${i}b`, `${i}c`])),
    ];
    const groups = groupFindings(findings);
    expect(groups.map(({ kind, label, calls }) => ({ kind, label, calls }))).toEqual([
      { kind: 'repeated_call', label: 'Repeated calls: 34 groups', calls: 3 + 4 + 32 * 3 },
      { kind: 'repeated_failure', label: 'Failing tools: 1 tool', calls: 3 },
    ]);
    expect(groups[0]?.findings.slice(0, 2).map((finding) => finding.tool)).toEqual(['read_file', 'search']);
    expect(groupFindings([])).toEqual([]);
  });

  it('groups what loop detection finds', () => {
    const loop = [1, 2, 3].map(() => sessionCall({ status: 'failed' }));
    const groups = groupFindings(findSessionLoops(loop));
    expect(groups.map((group) => [group.label, group.findings.length])).toEqual([
      ['Repeated calls: 1 group', 1],
      ['Failing tools: 1 tool', 1],
    ]);
  });
});
