'use client';

import { useEffect, useRef, useState } from 'react';
import type { TraceEvent } from '@/lib/events';
import { type ConnectionStatus, connectEventStream, type ToolsChangedEvent } from '@/lib/ui/event-stream-connection';

/** The stream's state and, while disconnected, when the next reconnect try is (epoch ms). */
export type LiveConnection = ConnectionStatus;

export interface TraceEventsOptions {
  /** Default true; false closes the stream. */
  enabled?: boolean;
  /** Only this tool's events. */
  tool?: string;
  /** Only this session's events (`?session=`). */
  session?: string;
  /** Only this trace's events, its `progress` events included. */
  trace?: string;
  /** Called after the stream came back from a drop: refetch what may have been missed. */
  onReconnect?: () => void;
  /** `event: tools` (unfiltered streams only): the registered tools changed. */
  onTools?: (event: ToolsChangedEvent) => void;
}

/**
 * Subscribes to `/api/v1/events` (server-sent events) while `enabled` and calls `onEvent` for each
 * trace change (`data` of `event: trace`: `trace_id`, `session_id`, `type`…). Heartbeats are
 * watched, drops are retried with backoff resuming after the last event id, and the returned
 * state says honestly whether the stream is up (see `connectEventStream`).
 * @example const { state, retryAt } = useTraceEvents(() => void refetch(), { trace: id, onReconnect: refetch });
 */
export function useTraceEvents(onEvent: (event: TraceEvent) => void, options: TraceEventsOptions = {}): LiveConnection {
  const { enabled = true, tool, session, trace } = options;
  const [status, setStatus] = useState<LiveConnection>({ state: 'connecting', retryAt: null });
  const handlers = useRef({ onEvent, onReconnect: options.onReconnect, onTools: options.onTools });
  handlers.current = { onEvent, onReconnect: options.onReconnect, onTools: options.onTools };

  useEffect(() => {
    if (!enabled) return;
    const params = new URLSearchParams();
    if (tool) params.set('tool', tool);
    if (session) params.set('session', session);
    if (trace) params.set('trace', trace);
    const query = params.toString();
    setStatus({ state: 'connecting', retryAt: null });
    const connection = connectEventStream({
      url: query ? `/api/v1/events?${query}` : '/api/v1/events',
      open: (url) => new EventSource(url),
      onEvent: (event) => handlers.current.onEvent(event),
      onStatus: setStatus,
      onReconnect: () => handlers.current.onReconnect?.(),
      onTools: (event) => handlers.current.onTools?.(event),
    });
    // Back online: do not sit out a long backoff.
    const online = () => connection.retryNow();
    window.addEventListener('online', online);
    return () => {
      window.removeEventListener('online', online);
      connection.close();
    };
  }, [enabled, tool, session, trace]);

  return status;
}
