'use client';

import { useRouter } from 'next/navigation';
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import {
  type ResolvedTimeZone,
  resolveTimeZone,
  TIME_ZONE_COOKIE,
  type TimeZoneChoice,
  timeZoneCookieValue,
} from '@/lib/ui/time-zone';

interface TimeZoneState extends ResolvedTimeZone {
  /**
   * "Today" for row times. Starts at the server's render time so the first client render matches
   * the server's text, then follows the browser's clock.
   */
  now: number;
  setChoice: (choice: TimeZoneChoice) => void;
}

const TimeZoneContext = createContext<TimeZoneState>({
  choice: { kind: 'utc' },
  zone: 'UTC',
  serverZone: 'UTC',
  now: 0,
  setChoice: () => {},
});

/** The zone every time on the page is shown in; read by `Timestamp` and the header's zone menu. */
export function useTimeZone(): TimeZoneState {
  return useContext(TimeZoneContext);
}

/**
 * Holds the time-zone decision the server resolved from the cookie. Changing it writes the cookie
 * and refreshes the server-rendered parts, so server and browser keep agreeing.
 */
export function TimeZoneProvider({
  initial,
  renderedAt,
  children,
}: {
  initial: ResolvedTimeZone;
  renderedAt: number;
  children: ReactNode;
}) {
  const router = useRouter();
  const [resolved, setResolved] = useState(initial);
  const [now, setNow] = useState(renderedAt);
  useEffect(() => setResolved(initial), [initial]);
  useEffect(() => {
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);

  const setChoice = useCallback(
    (choice: TimeZoneChoice) => {
      // biome-ignore lint/suspicious/noDocumentCookie: one plain cookie the server reads; no cookie store API needed.
      document.cookie = `${TIME_ZONE_COOKIE}=${encodeURIComponent(timeZoneCookieValue(choice))}; path=/; max-age=31536000; samesite=lax`;
      setResolved((current) => resolveTimeZone(choice, current.serverZone));
      router.refresh();
    },
    [router],
  );
  const value = useMemo(() => ({ ...resolved, now, setChoice }), [resolved, now, setChoice]);
  return <TimeZoneContext.Provider value={value}>{children}</TimeZoneContext.Provider>;
}
