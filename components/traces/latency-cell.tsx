import { formatDuration } from '@/lib/ui/format';
import { latencyFraction } from '@/lib/ui/latency-fraction';

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
