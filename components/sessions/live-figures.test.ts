import { describe, expect, it } from 'vitest';
import { sessionCallJson, sessionTotals } from '@/lib/api/session-json';
import type { SessionDetailJson } from '@/lib/api/sessions';
import type { SessionCall } from '@/lib/db/session-types';
import type { Attempt } from '@/lib/executor/types';
import { approvalWaitAt, latencyAt, sessionFiguresAt } from './live-figures';

const base = Date.UTC(2026, 4, 4, 12);
let n = 0;

function call(overrides: Partial<SessionCall>): SessionCall {
  n += 1;
  return {
    id: `t${n}`,
    toolCallId: `c${n}`,
    sessionId: 's',
    actor: 'api',
    principal: null,
    tool: 'write_file',
    status: 'succeeded',
    createdAt: base,
    finishedAt: base + 10,
    latencyMs: 10,
    attemptCount: 0,
    errorCode: null,
    flags: { retried: false, fellBack: false, truncated: false, faulted: false, replayed: false },
    argumentsPreview: null,
    sessionSeq: n,
    servedFrom: null,
    imported: false,
    batchId: null,
    approval: null,
    attempts: [],
    arguments: null,
    ...overrides,
  };
}

const attempt = (number: number, startedAt: number, durationMs: number, outcome: Attempt['outcome']): Attempt => ({
  number,
  tool: 'write_file',
  fallback: false,
  startedAt,
  durationMs,
  outcome,
  error: null,
  backoffMs: null,
  fault: null,
});

const approval = (requestedAt: number, decidedAt: number | null) => ({
  rule: 'default for write: ask',
  requestedAt,
  expiresAt: null,
  decision: decidedAt === null ? null : ('approved' as const),
  by: null,
  decidedAt,
  reason: null,
  ruleCreated: null,
});

/** The calls of a session still going: one done after a wait, one running after a wait, one waiting. */
function goingSession(now: number) {
  const calls = [
    call({
      createdAt: base,
      finishedAt: base + 1_020,
      latencyMs: 20,
      approval: approval(base + 2, base + 1_002),
      attempts: [attempt(1, 1_005, 5, 'timeout'), attempt(2, 1_013, 7, 'ok')],
    }),
    call({
      status: 'running',
      createdAt: base + 100,
      finishedAt: null,
      latencyMs: null,
      approval: approval(base + 101, base + 2_101),
      attempts: [attempt(1, 2_003, 0, 'running')],
    }),
    call({
      status: 'awaiting_approval',
      createdAt: base + 200,
      finishedAt: null,
      latencyMs: null,
      approval: approval(base + 202, null),
    }),
  ];
  const json = {
    first_call_at: new Date(base).toISOString(),
    ended_at: null,
    wall_ms: now - base,
    calls: calls.map((c) => sessionCallJson(c, now)),
  } as unknown as SessionDetailJson;
  return { calls, json };
}

describe('a session’s figures as they tick', () => {
  it('sum to what the server says at the same moment, and keep counting between two refreshes', () => {
    const served = base + 3_000;
    const { calls, json } = goingSession(served);
    for (const now of [served, served + 250, served + 5_000]) {
      const figures = sessionFiguresAt(json, now);
      const totals = sessionTotals(calls, now);
      expect(figures).toEqual({
        wallMs: now - base,
        executingMs: totals.executing_ms,
        retryingMs: totals.retrying_ms,
        approvalWaitMs: totals.approval_wait_ms,
      });
    }
    // The running attempt started 2,103 ms after the session began: at +3 s it has run 897 ms.
    expect(sessionFiguresAt(json, served).executingMs).toBe(5 + 897);
  });

  it('gives a call its latency without the wait, still while it waits, and the wait beside it', () => {
    const served = base + 3_000;
    const [done, running, waiting] = goingSession(served).json.calls;
    expect(latencyAt(done!, served)).toBe(20);
    expect(approvalWaitAt(done!, served)).toBe(1_000);
    // Arrived at +100 and waited 2 s of the 2.9 s since: 900 ms at +3 s.
    expect(latencyAt(running!, served)).toBe(900);
    expect(latencyAt(running!, served + 100)).toBe(1_000);
    expect(approvalWaitAt(waiting!, served)).toBe(2_798);
    expect(latencyAt(waiting!, served)).toBe(2);
    expect(latencyAt(waiting!, served + 1_000)).toBe(2);
  });

  it('ends a finished session where the server says, not now', () => {
    const { json } = goingSession(base + 3_000);
    const finished = { ...json, ended_at: new Date(base + 2_500).toISOString(), wall_ms: 2_500 };
    expect(sessionFiguresAt(finished, base + 60_000).wallMs).toBe(2_500);
  });
});
