'use client';

import { useEffect, useState } from 'react';

/**
 * The server's clock now, in epoch ms, ticking every `intervalMs` while `ticking`. It starts at
 * `serverTime` (the time the snapshot was taken), so the server render and the first client
 * render agree; then it runs on the browser's clock shifted by the skew measured when the
 * snapshot arrived, so elapsed times do not depend on the two clocks agreeing.
 */
export function useServerNow(serverTime: string, ticking: boolean, intervalMs = 250): number {
  const serverMs = Date.parse(serverTime);
  const [now, setNow] = useState(serverMs);
  useEffect(() => {
    const skew = serverMs - Date.now();
    if (!ticking) return;
    const tick = () => setNow(Date.now() + skew);
    tick();
    const timer = setInterval(tick, intervalMs);
    return () => clearInterval(timer);
  }, [serverMs, ticking, intervalMs]);
  return Math.max(now, serverMs);
}
