import { eventFrames, eventFramesGzip, pingFrame, RETRY_FRAME, resetFrame, startFrame } from '../event-frames';
import { HEARTBEAT_INTERVAL_MS, type StreamEvent, type SubscribeOptions, type TraceEvents } from '../events';
import { createGzipStream, GZIP_HEADER, gzipSegment } from '../sse-gzip';

export interface EventStreamOptions
  extends Pick<SubscribeOptions, 'tool' | 'session' | 'trace' | 'progress' | 'principal' | 'lastEventId'> {
  /** Deflate the stream (the client accepts gzip): each batch is deflated once for every stream. */
  gzip: boolean;
  heartbeatMs?: number;
  /** A HEAD request: the headers alone. */
  headOnly?: boolean;
  /**
   * Drops the connection of a client that fell behind (Node's socket, destroyed): the stream's
   * error would do it too, but logged as a failure of the response.
   */
  drop?: () => void;
}

/** A subscriber this far behind (a client that stopped reading) is dropped rather than buffered for. */
export const MAX_PENDING_BYTES = 1024 * 1024;

/**
 * The server-sent event stream of `GET /api/v1/events`, as a web `Response` whose body the HTTP
 * layer writes (node's socket in production, Next's route under `npm run dev`):
 * 1. `retry` and an `event: ping` in the first chunk, then a ping every `heartbeatMs`;
 * 2. with `lastEventId`, the events missed since (or `event: reset`); else the `id:` where it starts;
 * 3. the bus's batches (`trace`, `approval`, `fault_rule`, `tools`), each encoded — and, for gzip,
 *    deflated — once for every stream with the same filter (`lib/sse-gzip.ts`);
 * 4. ends when the client goes away, falls more than MAX_PENDING_BYTES behind (a resume's replay
 *    may be written beside that allowance: the client could never get past it otherwise), or the
 *    bus closes (shutdown).
 */
export function eventStreamResponse(events: TraceEvents, options: EventStreamOptions): Response {
  const headers: Record<string, string> = {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
    vary: 'accept-encoding',
  };
  if (options.gzip) headers['content-encoding'] = 'gzip';
  if (options.headOnly) return new Response(null, { headers });
  let end = () => {};
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        end = followEvents(events, options, controller);
      },
      cancel() {
        end();
      },
    },
    // Bytes queued and not yet written to the client: what MAX_PENDING_BYTES bounds.
    { highWaterMark: MAX_PENDING_BYTES, size: (chunk) => chunk.byteLength },
  );
  return new Response(body, { headers });
}

/** Subscribes one stream to the bus, writing into `controller`; returns what ends it. */
function followEvents(
  events: TraceEvents,
  options: EventStreamOptions,
  controller: ReadableStreamDefaultController<Uint8Array>,
): () => void {
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_INTERVAL_MS;
  const gzip = options.gzip ? createGzipStream() : null;
  let open = true;
  // A resume's replay is allowed on top of the bound while it is written.
  let allowance = 0;
  let replaying = true;
  const write = (chunk: Uint8Array) => {
    if (!open) return;
    controller.enqueue(chunk);
    const queued = MAX_PENDING_BYTES - (controller.desiredSize ?? 0);
    if (queued > MAX_PENDING_BYTES + allowance) {
      // The client stopped reading: the connection is dropped, and it resumes from its last id.
      if (options.drop) {
        options.drop();
        end();
      } else end(new Error('the client fell more than MAX_PENDING_BYTES behind'));
      return;
    }
    if (queued <= 0) allowance = 0;
  };
  const send = gzip
    ? (frame: string) => write(gzip.add(gzipSegment(frame)))
    : (frame: string) => write(Buffer.from(frame));
  const sendEvents = gzip
    ? (batch: readonly StreamEvent[]) => write(gzip.add(eventFramesGzip(batch)))
    : (batch: readonly StreamEvent[]) => write(eventFrames(batch));
  if (gzip) write(GZIP_HEADER);
  // One chunk (one gzip segment): a client's first read has both.
  send(RETRY_FRAME + pingFrame(Date.now(), heartbeatMs));
  const heartbeat = setInterval(() => send(pingFrame(Date.now(), heartbeatMs)), heartbeatMs);
  let unsubscribe = () => {};
  const end = (behind?: Error) => {
    if (!open) return;
    open = false;
    clearInterval(heartbeat);
    unsubscribe();
    try {
      if (behind) controller.error(behind);
      else {
        if (gzip) controller.enqueue(gzip.end());
        controller.close();
      }
    } catch {
      // the client already cancelled the stream
    }
  };
  unsubscribe = events.subscribe(
    {
      onEvents: (batch) => {
        if (replaying) allowance += gzip ? eventFramesGzip(batch).bytes.length : eventFrames(batch).length;
        sendEvents(batch);
      },
      onReset: (id) => send(resetFrame(id, Date.now())),
      onStart: (id) => send(startFrame(id)),
      onClose: () => end(),
    },
    {
      tool: options.tool,
      trace: options.trace,
      session: options.session,
      progress: options.progress,
      principal: options.principal,
      lastEventId: options.lastEventId,
    },
  );
  replaying = false;
  // Closed while subscribing (the bus is shut): `unsubscribe` was not known then.
  if (!open) unsubscribe();
  return () => end();
}
