import { eventFrames, pingFrame, RETRY_FRAME, resetFrame, startFrame } from '../event-frames';
import { HEARTBEAT_INTERVAL_MS, type TraceEvents } from '../events';

export interface EventStreamOptions {
  /** Only this tool's events. */
  tool?: string | null;
  /** Only this session's events. */
  session?: string | null;
  /** Follow one trace: its events only, `progress` included. */
  trace?: string | null;
  /** Resume after this id (`Last-Event-ID`): the missed events first, or `event: reset`. */
  lastEventId?: string | null;
  heartbeatMs?: number;
}

const encoder = new TextEncoder();

/**
 * A server-sent event stream: `event: trace|approval|fault_rule`, each with its `id:` and one JSON
 * `data:` line, and `event: ping` at once and every `heartbeatMs`, so clients can tell a quiet
 * stream from a dead one. Events come a batch at a time (see `createTraceEvents`), each batch one
 * chunk; a resume (`lastEventId`) starts with the missed ones, or `event: reset`. The stream ends
 * when the client goes away or the bus closes (server shutdown).
 * @example return eventStreamResponse(request.signal, ts.events, { trace: id });
 */
export function eventStreamResponse(signal: AbortSignal, events: TraceEvents, options: EventStreamOptions = {}) {
  const { tool, trace, session, lastEventId } = options;
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_INTERVAL_MS;
  let cleanup = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      let open = true;
      let unsubscribe = () => {};
      const send = (chunk: string | Uint8Array) => {
        if (!open) return;
        try {
          controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
        } catch {
          cleanup();
        }
      };
      const ping = () => send(pingFrame(Date.now(), heartbeatMs));
      const heartbeat = setInterval(ping, heartbeatMs);
      cleanup = () => {
        if (!open) return;
        open = false;
        clearInterval(heartbeat);
        unsubscribe();
        signal.removeEventListener('abort', cleanup);
        try {
          controller.close();
        } catch {
          // already closed by the client
        }
      };
      // The browser's own reconnect is a fallback; clients that manage reconnection close first.
      send(RETRY_FRAME);
      ping();
      unsubscribe = events.subscribe(
        // One batch's frames, encoded once for every stream with this filter.
        {
          onEvents: (events) => send(eventFrames(events)),
          onReset: (id) => send(resetFrame(id, Date.now())),
          onStart: (id) => send(startFrame(id)),
          onClose: () => cleanup(),
        },
        { tool, trace, session, lastEventId },
      );
      // Closed while the replay was written (before `unsubscribe` was known): leave now.
      if (!open) unsubscribe();
      if (signal.aborted) cleanup();
      else signal.addEventListener('abort', cleanup, { once: true });
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(stream, {
    headers: {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    },
  });
}
