'use client';

import { useEffect, useRef, useState } from 'react';
import type { TraceEvent } from '@/lib/events';

export type LiveConnection = 'connecting' | 'live' | 'reconnecting';

/**
 * Subscribes to `/api/v1/events` (server-sent events) while `enabled`; calls `onEvent` for each
 * trace change. EventSource reconnects by itself; the returned state says whether it is up.
 */
export function useTraceEvents(
  onEvent: (event: TraceEvent) => void,
  options: { enabled?: boolean; tool?: string } = {},
) {
  const { enabled = true, tool } = options;
  const [connection, setConnection] = useState<LiveConnection>('connecting');
  const handler = useRef(onEvent);
  handler.current = onEvent;

  useEffect(() => {
    if (!enabled) return;
    const source = new EventSource(tool ? `/api/v1/events?tool=${encodeURIComponent(tool)}` : '/api/v1/events');
    source.onopen = () => setConnection('live');
    source.onerror = () => setConnection('reconnecting');
    source.addEventListener('trace', (message) => {
      try {
        handler.current(JSON.parse((message as MessageEvent<string>).data) as TraceEvent);
      } catch {
        // a malformed event is ignored; the next one refreshes anyway
      }
    });
    return () => source.close();
  }, [enabled, tool]);

  return connection;
}
