import type { IncomingMessage, ServerResponse } from 'node:http';
import { HEARTBEAT_INTERVAL_MS, type TraceEvent } from '../events';
import type { Toolscope } from '../server/create-toolscope';

export interface EventsRouteOptions {
  heartbeatMs?: number;
}

/** A subscriber this far behind (a client that stopped reading) is dropped rather than buffered for. */
const MAX_PENDING_BYTES = 1024 * 1024;

// Every open stream receives the same event object in turn: serialise it once, not once per stream.
let lastEvent: TraceEvent | undefined;
let lastFrame = '';
function frameOf(event: TraceEvent): string {
  if (event !== lastEvent) {
    lastEvent = event;
    lastFrame = `event: trace\ndata: ${JSON.stringify(event)}\n\n`;
  }
  return lastFrame;
}

/**
 * `GET /api/v1/events?tool=&trace=` on the agent path: the same frames as Next's route
 * (`lib/api/event-stream.ts`): `retry`, an `event: ping` at once and every heartbeat, then
 * `event: trace` for every call's `begin`, `update`, `finish` (and `progress` when following one
 * `trace`). Ends when the client goes away or the bus closes (shutdown).
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
  const traceParam = params.get('trace');
  const trace = traceParam && traceParam.length <= 256 ? traceParam : null;
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_INTERVAL_MS;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
  });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  let open = true;
  const send = (text: string) => {
    if (!open) return;
    res.write(text);
    if (res.writableLength > MAX_PENDING_BYTES) res.destroy();
  };
  const ping = () => send(`event: ping\ndata: ${JSON.stringify({ at: Date.now(), heartbeat_ms: heartbeatMs })}\n\n`);
  send('retry: 2000\n\n');
  ping();
  const heartbeat = setInterval(ping, heartbeatMs);
  // Assigned below; `subscribe` calls `onClose` at once when the bus is already closed.
  let unsubscribe = () => {};
  const end = () => {
    if (!open) return;
    open = false;
    clearInterval(heartbeat);
    unsubscribe();
    res.end();
  };
  unsubscribe = ts.events.subscribe(
    {
      onEvent(event) {
        if (tool && event.tool !== tool) return;
        if (trace && event.id !== trace) return;
        send(frameOf(event));
      },
      onClose: end,
    },
    { trace: trace ?? undefined },
  );
  if (open) res.once('close', end);
}
