import { approvalWaitMs } from '../executor/approval-wait';
import type { TraceView } from './trace-from-json';

/** True while the call has not ended: it may still change. */
export function isUnfinished(status: TraceView['status']): boolean {
  return status === 'running' || status === 'awaiting_approval';
}

/**
 * The trace as of `nowMs` (epoch ms on the server's clock): the running stage and the running
 * attempt get the time elapsed since they started as their duration, and the call its latency so
 * far (execution only: the time elapsed less its wait for approval, so it holds still while the
 * call waits), so the waterfall grows and the timers tick between two snapshots. A finished
 * trace is returned as it is.
 */
export function withElapsed(trace: TraceView, nowMs: number): TraceView {
  if (!isUnfinished(trace.status)) return trace;
  const elapsed = Math.max(0, nowMs - trace.createdAt);
  const grow = (startedAt: number) => Math.max(0, elapsed - startedAt);
  return {
    ...trace,
    latencyMs: Math.max(0, elapsed - (approvalWaitMs(trace.approval, nowMs) ?? 0)),
    stages: trace.stages.map((s) =>
      s.status === 'running' || s.status === 'waiting' ? { ...s, durationMs: grow(s.startedAt) } : s,
    ),
    attempts: trace.attempts.map((a) => (a.outcome === 'running' ? { ...a, durationMs: grow(a.startedAt) } : a)),
  };
}

/** What the call is doing now, in words: "execute — attempt 2 running", "permission — awaiting approval". */
export function currentActivity(trace: TraceView): string | null {
  if (!isUnfinished(trace.status)) return null;
  const stage = trace.stages.find((s) => s.status === 'running' || s.status === 'waiting');
  const attempt = trace.attempts.find((a) => a.outcome === 'running');
  if (trace.status === 'awaiting_approval') return 'permission — awaiting approval';
  if (attempt)
    return `execute — ${attempt.fallback ? `fallback ${attempt.tool}` : `attempt ${attempt.number}`} running`;
  if (stage?.name === 'execute' && trace.attempts.length > 0) return 'execute — waiting before the next attempt';
  return stage ? `${stage.name} running` : 'starting';
}
