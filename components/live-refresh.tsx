'use client';

import { useRouter } from 'next/navigation';
import { useEffect, useRef } from 'react';
import type { TraceEvent } from '@/lib/events';
import { useTraceEvents } from './use-trace-events';

/**
 * Re-renders the current server page (router.refresh) when matching trace events arrive, at most
 * once per `intervalMs`. Renders nothing. Used by the trace view while a call is unfinished and by
 * the tools pages for live stats.
 */
export function LiveRefresh({
  traceId,
  tool,
  intervalMs = 1000,
  enabled = true,
}: {
  traceId?: string;
  tool?: string;
  intervalMs?: number;
  enabled?: boolean;
}) {
  const router = useRouter();
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const last = useRef(0);

  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );

  useTraceEvents(
    (event: TraceEvent) => {
      if (traceId && event.id !== traceId) return;
      if (timer.current) return;
      const wait = Math.max(0, last.current + intervalMs - Date.now());
      timer.current = setTimeout(() => {
        timer.current = null;
        last.current = Date.now();
        router.refresh();
      }, wait);
    },
    { enabled, tool },
  );
  return null;
}
