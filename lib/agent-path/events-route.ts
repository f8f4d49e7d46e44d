import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  eventFrames,
  eventFramesGzip,
  lastEventIdOf,
  pingFrame,
  RETRY_FRAME,
  resetFrame,
  startFrame,
} from '../event-frames';
import { HEARTBEAT_INTERVAL_MS, type StreamEvent } from '../events';
import type { Toolscope } from '../server/create-toolscope';
import { acceptsGzip, createGzipStream, GZIP_HEADER, gzipSegment } from '../sse-gzip';

export interface EventsRouteOptions {
  heartbeatMs?: number;
}

/** A subscriber this far behind (a client that stopped reading) is dropped rather than buffered for. */
const MAX_PENDING_BYTES = 1024 * 1024;

/**
 * `GET /api/v1/events?tool=&session=&trace=` on the agent path: the same frames as Next's route
 * (`lib/api/event-stream.ts`): `retry`, an `event: ping` at once and every heartbeat, then the
 * events (`trace`, `approval`, `fault_rule`), each with its `id:`. With `Last-Event-ID` (or
 * `?last_event_id=`) the missed events come first, or `event: reset`. The bus delivers events in
 * batches, each written as one Buffer shared by every stream with the same filter. A client that
 * accepts gzip (browsers do) gets the stream gzipped, each batch deflated once for every stream
 * (`lib/sse-gzip.ts`): a busy stream is ~17× fewer bytes to write. Ends when the
 * client goes away, falls more than MAX_PENDING_BYTES behind (its client resumes from its last
 * id), or the bus closes (shutdown).
 */
export function serveEvents(
  req: IncomingMessage,
  res: ServerResponse,
  ts: Toolscope,
  query: string,
  options: EventsRouteOptions = {},
): void {
  const params = new URLSearchParams(query);
  const tool = params.get('tool');
  const trace = bounded(params.get('trace'));
  const session = bounded(params.get('session'));
  const header = req.headers['last-event-id'];
  const lastEventId = lastEventIdOf(Array.isArray(header) ? header[0] : header, params);
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_INTERVAL_MS;
  const gzip = acceptsGzip(req.headers['accept-encoding']) ? createGzipStream() : null;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
    vary: 'accept-encoding',
    ...(gzip ? { 'content-encoding': 'gzip' } : {}),
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  let open = true;
  // A resume's replay (up to REPLAY_LIMIT events, megabytes) is written at once: it may wait in
  // the buffer beside MAX_PENDING_BYTES until it drained, or the client could never get past it.
  let allowance = MAX_PENDING_BYTES;
  let subscribing = true;
  const write = (chunk: Buffer | string) => {
    if (!open) return;
    res.write(chunk);
    if (res.writableLength > allowance) res.destroy();
  };
  const send = gzip ? (frame: string) => write(gzip.add(gzipSegment(frame))) : write;
  const sendEvents = gzip
    ? (events: readonly StreamEvent[]) => write(gzip.add(eventFramesGzip(events)))
    : (events: readonly StreamEvent[]) => write(eventFrames(events));
  const ping = () => send(pingFrame(Date.now(), heartbeatMs));
  if (gzip) res.write(GZIP_HEADER);
  // One write (one gzip segment): a client's first read has both.
  send(RETRY_FRAME + pingFrame(Date.now(), heartbeatMs));
  const heartbeat = setInterval(ping, heartbeatMs);
  // Assigned below; `subscribe` calls `onClose` at once when the bus is already closed.
  let unsubscribe = () => {};
  const end = () => {
    if (!open) return;
    open = false;
    clearInterval(heartbeat);
    unsubscribe();
    if (gzip && !res.destroyed) res.end(gzip.end());
    else res.end();
  };
  unsubscribe = ts.events.subscribe(
    {
      onEvents: (events) => {
        if (subscribing) {
          allowance += gzip ? eventFramesGzip(events).bytes.length : eventFrames(events).length;
          res.once('drain', () => (allowance = MAX_PENDING_BYTES));
        }
        sendEvents(events);
      },
      onReset: (id) => send(resetFrame(id, Date.now())),
      onStart: (id) => send(startFrame(id)),
      onClose: end,
    },
    { tool, trace, session, lastEventId },
  );
  subscribing = false;
  if (open) res.once('close', end);
}

/** An id-like parameter: ignored when absent or absurdly long. */
function bounded(value: string | null): string | null {
  return value && value.length <= 256 ? value : null;
}
