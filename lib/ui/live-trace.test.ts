import { describe, expect, it } from 'vitest';
import { makeTrace } from '../db/trace-store-suite';
import { currentActivity, withElapsed } from './live-trace';

const t0 = 1_700_000_000_000;

function running() {
  return makeTrace({
    status: 'running',
    createdAt: t0,
    finishedAt: null,
    latencyMs: null,
    stages: [
      { name: 'parse', status: 'ok', startedAt: 0, durationMs: 1, detail: null },
      { name: 'validate', status: 'ok', startedAt: 1, durationMs: 1, detail: null },
      { name: 'permission', status: 'ok', startedAt: 2, durationMs: 1, detail: null },
      { name: 'execute', status: 'running', startedAt: 3, durationMs: 0, detail: null },
    ],
    attempts: [
      {
        number: 1,
        tool: 'run_shell',
        fallback: false,
        startedAt: 3,
        durationMs: 100,
        outcome: 'timeout',
        timeoutMs: 100,
        error: null,
        backoffMs: 200,
        fault: null,
      },
      {
        number: 2,
        tool: 'run_shell',
        fallback: false,
        startedAt: 303,
        durationMs: 0,
        outcome: 'running',
        timeoutMs: 100,
        error: null,
        backoffMs: null,
        fault: null,
      },
    ],
  });
}

describe('withElapsed', () => {
  it('grows the running stage, the running attempt and the total with the time elapsed', () => {
    const live = withElapsed(running(), t0 + 353);
    expect(live.latencyMs).toBe(353);
    expect(live.stages.map((s) => s.durationMs)).toEqual([1, 1, 1, 350]);
    expect(live.attempts.map((a) => a.durationMs)).toEqual([100, 50]);
  });

  it('counts execution only: still while the call waits for approval, less the wait once it is decided', () => {
    const approval = (decidedAt: number | null) => ({
      rule: 'default for write: ask',
      requestedAt: t0 + 5,
      expiresAt: null,
      decision: decidedAt === null ? null : ('approved' as const),
      by: null,
      decidedAt,
      reason: null,
      ruleCreated: null,
    });
    const waiting = { ...running(), status: 'awaiting_approval' as const, attempts: [], approval: approval(null) };
    expect(withElapsed(waiting, t0 + 10_005).latencyMs).toBe(5);
    expect(withElapsed(waiting, t0 + 20_005).latencyMs).toBe(5);
    const approved = { ...running(), approval: approval(t0 + 52_205) };
    expect(withElapsed(approved, t0 + 52_305).latencyMs).toBe(105);
  });

  it('never goes negative when the clocks disagree, and leaves finished traces alone', () => {
    expect(withElapsed(running(), t0 - 5).attempts[1]?.durationMs).toBe(0);
    const done = makeTrace({ status: 'succeeded' });
    expect(withElapsed(done, Date.now() + 10_000)).toBe(done);
  });
});

describe('currentActivity', () => {
  it('names the running attempt, or the wait between attempts', () => {
    const trace = running();
    expect(currentActivity(trace)).toBe('execute — attempt 2 running');
    trace.attempts.pop();
    expect(currentActivity(trace)).toBe('execute — waiting before the next attempt');
    expect(currentActivity(makeTrace({ status: 'failed' }))).toBeNull();
  });
});
