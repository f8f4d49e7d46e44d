import { formatDuration } from '@/lib/ui/format';

/**
 * Width of a latency bar, 0..1, on a log scale up to the page's slowest call: a 2 ms call and a
 * 10 s call both stay visible and comparable, where a linear scale would flatten the fast ones.
 */
export function latencyFraction(ms: number | null, slowestMs: number): number {
  if (ms === null || !(ms > 0) || !(slowestMs > 0)) return 0;
  return Math.min(1, Math.log1p(ms) / Math.log1p(slowestMs));
}

/** A latency as text with a small bar (hidden on phones, where the text says enough). */
export function LatencyCell({ ms, slowestMs, failed }: { ms: number | null; slowestMs: number; failed: boolean }) {
  const fraction = latencyFraction(ms, slowestMs);
  return (
    <span className="inline-flex items-center justify-end gap-2">
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
