import { Hourglass } from 'lucide-react';
import { formatDuration } from '@/lib/ui/format';
import { latencyFraction } from '@/lib/ui/latency-fraction';

/**
 * A latency as text with a small bar (hidden on phones, where the text says enough). The latency
 * is execution only; a call that waited for a person shows that wait beside it, as its own figure.
 */
export function LatencyCell({
  ms,
  slowestMs,
  failed,
  approvalWaitMs = null,
}: {
  ms: number | null;
  slowestMs: number;
  failed: boolean;
  /** How long the call waited for approval; null (or absent) when it never waited. */
  approvalWaitMs?: number | null;
}) {
  const fraction = latencyFraction(ms, slowestMs);
  return (
    <span className="inline-flex items-center justify-end gap-2">
      {approvalWaitMs !== null && (
        <span
          className="hidden items-center gap-0.5 text-[10px] tabular-nums text-amber-700 sm:inline-flex dark:text-amber-300"
          title={`Waited ${formatDuration(approvalWaitMs)} for approval (not counted in the latency)`}
          data-testid="latency-approval-wait"
        >
          <Hourglass size={10} aria-hidden />
          <span className="sr-only">waited </span>
          {formatDuration(approvalWaitMs)}
          <span className="sr-only"> for approval</span>
        </span>
      )}
      <span
        className="hidden h-1.5 w-14 overflow-hidden rounded-full bg-muted sm:block"
        aria-hidden
        data-testid="latency-bar"
      >
        <span
          className={`block h-full rounded-full ${failed ? 'bg-red-400 dark:bg-red-500' : 'bg-accent/70'}`}
          style={{ width: `${Math.max(fraction > 0 ? 4 : 0, fraction * 100)}%` }}
        />
      </span>
      <span className="min-w-14 tabular-nums">{formatDuration(ms)}</span>
    </span>
  );
}
