'use client';

import { Hourglass, TimerOff } from 'lucide-react';
import { useEffect, useState } from 'react';
import { isUrgent } from '@/lib/ui/approvals';
import { formatTimer } from '@/lib/ui/format';

/**
 * The browser's clock shifted by `skewMs` (server minus browser), ticking every second; null
 * until mounted, so the server's render and hydration agree.
 */
export function useTickingNow(skewMs: number): number | null {
  const [now, setNow] = useState<number | null>(null);
  useEffect(() => {
    const tick = () => setNow(Date.now() + skewMs);
    tick();
    const timer = setInterval(tick, 1_000);
    return () => clearInterval(timer);
  }, [skewMs]);
  return now;
}

/**
 * How long a pending call has waited (live) and when it expires (a countdown that turns red and
 * pulses near its end). Times are on the server's clock (`skewMs` corrects the browser's).
 */
export function WaitTimers({
  requestedAt,
  expiresAt,
  skewMs,
}: {
  requestedAt: number;
  expiresAt: number | null;
  skewMs: number;
}) {
  const ticking = useTickingNow(skewMs);
  const now = ticking ?? requestedAt;
  const urgent = ticking !== null && expiresAt !== null && isUrgent(requestedAt, expiresAt, now);
  const clock = (ms: number) => (ticking === null ? '–:––' : formatTimer(ms));
  return (
    <span className="inline-flex flex-wrap items-center gap-x-3 gap-y-0.5 text-xs tabular-nums">
      <span className="inline-flex items-center gap-1 text-fg-muted" data-testid="waited" title="Time waited">
        <Hourglass size={12} aria-hidden />
        waited <span className="font-medium text-fg">{clock(now - requestedAt)}</span>
      </span>
      {expiresAt === null ? (
        <span className="text-fg-muted">never expires</span>
      ) : (
        <span
          data-testid="expires"
          data-urgent={urgent || undefined}
          title={`Expires at ${new Date(expiresAt).toISOString()}: the call is then denied with APPROVAL_TIMEOUT`}
          className={`inline-flex items-center gap-1 rounded px-1 ${urgent ? 'animate-pulse bg-red-100 font-semibold text-red-800 dark:bg-red-950/60 dark:text-red-200' : 'text-fg-muted'}`}
        >
          <TimerOff size={12} aria-hidden />
          {ticking === null || expiresAt - now > 0 ? (
            <>
              expires in <span className={urgent ? '' : 'font-medium text-fg'}>{clock(expiresAt - now)}</span>
            </>
          ) : (
            'expiring…'
          )}
        </span>
      )}
    </span>
  );
}
