import { describe, expect, it } from 'vitest';
import type { SessionCall } from '../db/session-types';
import {
  canonicalArguments,
  findSessionLoops,
  REPEATED_CALL_THRESHOLD,
  REPEATED_FAILURE_THRESHOLD,
} from './session-findings';
import { sessionTotals } from './session-json';

/** A session's loop findings and time totals, from its calls (pure: no store, no HTTP). */
describe('loop detection', () => {
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
