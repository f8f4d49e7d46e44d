'use client';

import { formatDateTime, formatRelative } from '@/lib/ui/format';
import { useTimeZone } from '../time-zone-provider';

/**
 * How long ago `iso` was (`3 min ago`), the exact time in the UI's zone on hover. "Now" is the
 * time-zone provider's clock, which starts at the server's render time: no hydration mismatch.
 */
export function RelativeTime({ iso, testId }: { iso: string; testId?: string }) {
  const { zone, now } = useTimeZone();
  const ms = Date.parse(iso);
  return (
    <time
      dateTime={iso}
      title={`${formatDateTime(ms, zone)} · ${iso}`}
      className="whitespace-nowrap tabular-nums"
      data-testid={testId}
    >
      {formatRelative(ms, Math.max(now, ms))}
    </time>
  );
}
