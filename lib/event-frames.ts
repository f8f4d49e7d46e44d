import { REPLAY_LIMIT, type StreamEvent } from './events';
import { type GzipSegment, gzipSegment } from './sse-gzip';

// The bus hands every stream with the same filter the same array: encode each array once.
const encoded = new WeakMap<readonly StreamEvent[], Buffer>();

/**
 * A batch's server-sent event frames (`id:`, `event: trace|approval|fault_rule`, one JSON `data:`
 * line each) as one Buffer, encoded once however many streams write it.
 * @example res.write(eventFrames(events));
 */
export function eventFrames(events: readonly StreamEvent[]): Buffer {
  let frames = encoded.get(events);
  if (!frames) {
    let text = '';
    for (const event of events)
      text += `id: ${event.id}\nevent: ${event.kind}\ndata: ${JSON.stringify(event.data)}\n\n`;
    frames = Buffer.from(text);
    encoded.set(events, frames);
  }
  return frames;
}

const deflated = new WeakMap<readonly StreamEvent[], GzipSegment>();

/** The same frames as a gzip segment, deflated once however many gzip streams write it. */
export function eventFramesGzip(events: readonly StreamEvent[]): GzipSegment {
  let segment = deflated.get(events);
  if (!segment) {
    segment = gzipSegment(eventFrames(events));
    deflated.set(events, segment);
  }
  return segment;
}

/** The heartbeat frame: `event: ping` with the time and the interval, so a client can tell a quiet stream from a dead one. */
export function pingFrame(at: number, heartbeatMs: number): string {
  return `event: ping\ndata: ${JSON.stringify({ at, heartbeat_ms: heartbeatMs })}\n\n`;
}

/**
 * The frame for a resume that missed more than can be replayed: the client refetches what it
 * shows, and resumes from `id` (where the stream stands now) next time.
 */
export function resetFrame(id: number, at: number): string {
  const data = { reason: `missed more events than can be replayed (at most ${REPLAY_LIMIT}): refetch`, at };
  return `id: ${id}\nevent: reset\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * Where a new stream starts: an `id:` line alone, which dispatches no event but sets the client's
 * last event id (as the HTML standard says), so a client dropped before its first event resumes
 * from here instead of from nothing.
 */
export function startFrame(id: number): string {
  return `id: ${id}\n\n`;
}

/** The first frame: the browser's own reconnect delay, a fallback for clients that do not manage reconnection. */
export const RETRY_FRAME = 'retry: 2000\n\n';

/** The resume point a request names: the `Last-Event-ID` header, else `?last_event_id=` (clients that cannot set headers). */
export function lastEventIdOf(header: string | null | undefined, params: URLSearchParams): string | null {
  const id = header?.trim() || params.get('last_event_id');
  return id ? id : null;
}
