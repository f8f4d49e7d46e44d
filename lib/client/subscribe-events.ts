import type { ToolscopeEvent } from './api-types';
import { createSseParser } from './sse-parser';
import { fromFetchFailure, ToolscopeError } from './toolscope-error';
import type { Transport } from './transport';

/** Which events a subscription hears of. */
export interface EventFilter {
  /** Only this session's calls. */
  session?: string;
  /** Only this tool's calls. */
  tool?: string;
  /** Follow one call (its progress events too). */
  trace?: string;
  /** Start after this event id: the server first replays what came after it. */
  lastEventId?: string;
}

export interface SubscribeOptions {
  /** Each time the stream is (re)connected, before its events: a place to refetch what you show. */
  onOpen?(): void;
  /**
   * A connection failed or dropped (`willRetry`), or the server refused the subscription for good
   * (a 4xx such as 401: `willRetry` false, the subscription has ended). Also gets what `onEvent` threw.
   */
  onError?(error: unknown, willRetry: boolean): void;
  /** First reconnect delay; doubles up to `maxRetryMs` (with jitter), back to this after a frame arrives. Default 250. */
  retryMs?: number;
  /** Default 10,000. */
  maxRetryMs?: number;
}

/** A stream counts as dead after this many heartbeats without a byte; then it is reconnected. */
const MISSED_HEARTBEATS = 3;
const DEFAULT_HEARTBEAT_MS = 5_000;
/** How long the server may take to answer a connection (a dev server compiles the route first). */
const CONNECT_TIMEOUT_MS = 30_000;

/**
 * Follows `GET /api/v1/events` over `fetch` (Node has no EventSource) until unsubscribed:
 * 1. Connects with the filter and, once an event was seen (or `lastEventId` given), `Last-Event-ID`,
 *    so that the server replays what was missed.
 * 2. Parses frames as they arrive: `ping` only keeps the watchdog fed (a stream silent for three
 *    heartbeats is taken as dead), every other frame goes to `onEvent` with its id.
 * 3. When the stream ends or fails, waits (exponential backoff with jitter) and goes back to 1;
 *    a 4xx other than 408/429 ends the subscription (`onError` with `willRetry` false).
 * @returns unsubscribe: closes the stream and stops reconnecting.
 */
export function subscribeEvents(
  transport: Transport,
  filter: EventFilter,
  onEvent: (event: ToolscopeEvent) => void,
  options: SubscribeOptions = {},
): () => void {
  const stopped = new AbortController();
  const firstDelay = options.retryMs ?? 250;
  const maxDelay = options.maxRetryMs ?? 10_000;
  let lastEventId = filter.lastEventId ?? null;
  let delay = firstDelay;
  const query = new URLSearchParams();
  for (const key of ['session', 'tool', 'trace'] as const) {
    const value = filter[key];
    if (value) query.set(key, value);
  }
  const report = (error: unknown, willRetry: boolean) => {
    if (stopped.signal.aborted) return;
    if (options.onError) options.onError(error, willRetry);
    else if (!willRetry) console.error('[toolscope client] the event stream ended:', error);
  };

  /** One connection, read until it ends. Returns false when the subscription must end. */
  const connect = async (): Promise<boolean> => {
    const attempt = new AbortController();
    const abort = () => attempt.abort();
    stopped.signal.addEventListener('abort', abort, { once: true });
    let watchdog: ReturnType<typeof setTimeout> | undefined;
    let heartbeatMs = DEFAULT_HEARTBEAT_MS;
    const feed = () => {
      clearTimeout(watchdog);
      watchdog = setTimeout(abort, heartbeatMs * MISSED_HEARTBEATS);
    };
    try {
      const headers: Record<string, string> = { accept: 'text/event-stream' };
      if (lastEventId !== null) headers['last-event-id'] = lastEventId;
      watchdog = setTimeout(abort, CONNECT_TIMEOUT_MS);
      const response = await transport.send('GET', '/api/v1/events', { query, headers, signal: attempt.signal });
      if (!response.ok) {
        const error = await transport.errorOf(response);
        const fatal =
          response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429;
        report(error, !fatal);
        return !fatal;
      }
      if (!response.body) throw new ToolscopeError('BAD_RESPONSE', 'The event stream has no body.', response.status);
      feed();
      options.onOpen?.();
      const parse = createSseParser();
      const decoder = new TextDecoder();
      const reader = response.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        feed();
        for (const frame of parse(decoder.decode(value, { stream: true }))) {
          delay = firstDelay;
          if (frame.event === '') {
            // Where the stream starts: resuming from here misses nothing, even before a first event.
            if (frame.id !== null) lastEventId = frame.id;
            continue;
          }
          let data: unknown = null;
          try {
            data = frame.data ? JSON.parse(frame.data) : null;
          } catch {
            report(new ToolscopeError('BAD_RESPONSE', `An ${frame.event} event's data is not JSON.`, 200), true);
            continue;
          }
          if (frame.event === 'ping') {
            const beat = (data as { heartbeat_ms?: unknown } | null)?.heartbeat_ms;
            if (typeof beat === 'number' && beat > 0) heartbeatMs = beat;
            continue;
          }
          if (frame.id !== null) lastEventId = frame.id;
          try {
            onEvent({ event: frame.event, id: frame.id, data } as ToolscopeEvent);
          } catch (error) {
            report(error, true);
          }
        }
      }
      report(new ToolscopeError('NETWORK_ERROR', 'The event stream was closed by the server.', 0), true);
    } catch (error) {
      report(fromFetchFailure(error, 'GET /api/v1/events'), true);
    } finally {
      clearTimeout(watchdog);
      stopped.signal.removeEventListener('abort', abort);
      attempt.abort();
    }
    return true;
  };

  const run = async () => {
    while (!stopped.signal.aborted && (await connect())) {
      if (stopped.signal.aborted) break;
      const wait = delay / 2 + Math.random() * (delay / 2);
      delay = Math.min(delay * 2, maxDelay);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(done, wait);
        function done() {
          clearTimeout(timer);
          stopped.signal.removeEventListener('abort', done);
          resolve();
        }
        stopped.signal.addEventListener('abort', done, { once: true });
      });
    }
  };
  void run();
  return () => stopped.abort();
}
