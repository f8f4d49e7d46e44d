import { describe, expect, it } from 'vitest';
import { approvalWaitMs, executionMs } from './approval-wait';
import type { TraceStage } from './types';

const permission = (durationMs: number, status: TraceStage['status'] = 'ok'): TraceStage[] => [
  { name: 'parse', status: 'ok', startedAt: 0, durationMs: 0.1, detail: null },
  { name: 'permission', status, startedAt: 0.2, durationMs, detail: null },
];

describe('approvalWaitMs', () => {
  it('measures from the request to the decision, or to `untilMs` while undecided; null without a wait', () => {
    expect(approvalWaitMs({ requestedAt: 1_000, decidedAt: 53_200 }, 99_999)).toBe(52_200);
    expect(approvalWaitMs({ requestedAt: 1_000, decidedAt: null }, 4_000)).toBe(3_000);
    expect(approvalWaitMs({ requestedAt: 5_000, decidedAt: null }, 4_000)).toBe(0);
    expect(approvalWaitMs(null, 4_000)).toBeNull();
    expect(approvalWaitMs(undefined, 4_000)).toBeNull();
  });
});

describe('executionMs', () => {
  it('takes the decided wait out of the time from arrival to answer', () => {
    expect(executionMs(52_203.25, { requestedAt: 1_000, decidedAt: 53_200 }, permission(52_200.5))).toBe(3.25);
  });

  it('leaves a call that never waited, or is still waiting, as it is', () => {
    expect(executionMs(12.5, null, [])).toBe(12.5);
    expect(executionMs(12.5, { requestedAt: 0, decidedAt: null }, permission(0, 'waiting'))).toBe(12.5);
  });

  it('takes out no more than the permission stage lasted here (a wait begun before a restart), never below 0', () => {
    // Requested an hour before this process took the call up; it waited 2 s of it here.
    expect(executionMs(2_005, { requestedAt: 0, decidedAt: 3_600_000 }, permission(2_000))).toBe(5);
    expect(executionMs(10, { requestedAt: 0, decidedAt: 3_600_000 }, [])).toBe(0);
  });
});
