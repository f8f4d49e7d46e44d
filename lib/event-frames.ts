import type { TraceEvent } from './events';

// The bus hands every stream with the same filter the same array: encode each array once.
const encoded = new WeakMap<readonly TraceEvent[], Buffer>();

/**
 * A batch's server-sent event frames (`event: trace`, one JSON `data:` line each) as one Buffer,
 * encoded once however many streams write it.
 * @example res.write(traceFrames(events));
 */
export function traceFrames(events: readonly TraceEvent[]): Buffer {
  let frames = encoded.get(events);
  if (!frames) {
    let text = '';
    for (const event of events) text += `event: trace\ndata: ${JSON.stringify(event)}\n\n`;
    frames = Buffer.from(text);
    encoded.set(events, frames);
  }
  return frames;
}

/** The heartbeat frame: `event: ping` with the time and the interval, so a client can tell a quiet stream from a dead one. */
export function pingFrame(at: number, heartbeatMs: number): string {
  return `event: ping\ndata: ${JSON.stringify({ at, heartbeat_ms: heartbeatMs })}\n\n`;
}

/** The first frame: the browser's own reconnect delay, a fallback for clients that do not manage reconnection. */
export const RETRY_FRAME = 'retry: 2000\n\n';
