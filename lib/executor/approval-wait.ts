import type { ApprovalRecord, TraceStage } from './types';

/** The two times of an approval that bound its wait. */
export type ApprovalTimes = Pick<ApprovalRecord, 'requestedAt' | 'decidedAt'>;

/**
 * How long a call waited for a person (ms): from when it began waiting to the decision, or to
 * `untilMs` while no decision was made (now, or the call's end). Null when it never waited.
 * @example approvalWaitMs({ requestedAt: 1_000, decidedAt: 53_200 }, Date.now()) // 52_200
 */
export function approvalWaitMs(approval: ApprovalTimes | null | undefined, untilMs: number): number | null {
  if (!approval) return null;
  return Math.max(0, (approval.decidedAt ?? untilMs) - approval.requestedAt);
}

/**
 * A call's latency as Toolscope reports it, execution only: `wallMs` (arrival to answer, on the
 * monotonic clock) less its wait for approval. The wait is the decided one (epoch times), never
 * more than the permission stage lasted in this process: a call taken up after a restart waited
 * partly before it, outside `wallMs`.
 * @example executionMs(52_203, { requestedAt: 0, decidedAt: 52_200 }, stages) // 3
 */
export function executionMs(
  wallMs: number,
  approval: ApprovalTimes | null | undefined,
  stages: readonly TraceStage[],
): number {
  if (!approval || approval.decidedAt === null) return wallMs;
  let wait = Math.max(0, approval.decidedAt - approval.requestedAt);
  const permission = stages.find((stage) => stage.name === 'permission');
  if (permission && (permission.status === 'ok' || permission.status === 'failed')) {
    wait = Math.min(wait, permission.durationMs);
  }
  // To the microsecond, as latencies are stored.
  return Math.max(0, Math.round((wallMs - wait) * 1000) / 1000);
}
