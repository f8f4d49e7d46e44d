'use client';

import { useEffect, useRef, useSyncExternalStore } from 'react';
import type { TraceEvent } from '@/lib/events';
import { browserEventStream } from '@/lib/ui/browser-event-stream';
import type { ConnectionStatus, ToolsChangedEvent } from '@/lib/ui/event-stream-connection';

/** The stream's state and, while disconnected, when the next reconnect try is (epoch ms). */
export type LiveConnection = ConnectionStatus;

export interface TraceEventsOptions {
  /** Default true; false stops hearing events (the status is still the stream's). */
  enabled?: boolean;
  /** Only this tool's events. */
  tool?: string;
  /** Only this session's events. */
  session?: string;
  /** Only this trace's events, its `progress` events included. */
  trace?: string;
  /** Called after the stream came back from a drop: refetch what may have been missed. */
  onReconnect?: () => void;
  /** `event: tools` (unfiltered views only): the registered tools changed. */
  onTools?: (event: ToolsChangedEvent) => void;
}

const CONNECTING: LiveConnection = { state: 'connecting', retryAt: null };
const subscribeStatus = (listener: () => void) => browserEventStream().onStatus(listener);
const currentStatus = () => browserEventStream().status();
const serverStatus = () => CONNECTING;

/** The state of the browser's one event stream (`Connecting…` on the server). */
export function useLiveConnection(): LiveConnection {
  return useSyncExternalStore(subscribeStatus, currentStatus, serverStatus);
}

/** Skips the wait before the event stream's next reconnect try ("Retry now"), in whichever tab holds it. */
export function retryLiveConnection(): void {
  browserEventStream().retryNow();
}

/**
 * Calls `onEvent` for each trace change (`data` of `event: trace`: `trace_id`, `session_id`,
 * `type`…) that a stream of `/api/v1/events` with this `tool`, `session` or `trace` would get,
 * while `enabled`. All tabs of the browser share one stream (`lib/ui/shared-event-stream.ts`),
 * filtered here as the server would; heartbeats are watched, drops retried resuming after the last
 * event id, and the returned state says honestly whether the stream is up.
 * @example const { state, retryAt } = useTraceEvents(() => void refetch(), { trace: id, onReconnect: refetch });
 */
export function useTraceEvents(onEvent: (event: TraceEvent) => void, options: TraceEventsOptions = {}): LiveConnection {
  const { enabled = true, tool, session, trace } = options;
  const handlers = useRef({ onEvent, onReconnect: options.onReconnect, onTools: options.onTools });
  handlers.current = { onEvent, onReconnect: options.onReconnect, onTools: options.onTools };

  useEffect(() => {
    if (!enabled) return;
    return browserEventStream().subscribe({
      tool,
      session,
      trace,
      onEvent: (event) => handlers.current.onEvent(event),
      onReconnect: () => handlers.current.onReconnect?.(),
      onTools: (event) => handlers.current.onTools?.(event),
    });
  }, [enabled, tool, session, trace]);

  return useLiveConnection();
}
