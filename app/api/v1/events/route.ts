import type { TraceEvent } from '@/lib/events';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

const HEARTBEAT_MS = 15_000;

/**
 * `GET /api/v1/events`: a server-sent event stream of trace changes (`begin`, `update`,
 * `finish`), one JSON `data:` line each; `?tool=` narrows it to one tool. A comment line every 15 s
 * keeps proxies from closing an idle stream; the subscription ends when the client goes away.
 */
export function GET(request: Request) {
  const { events } = getToolscope();
  const tool = new URL(request.url).searchParams.get('tool');
  const encoder = new TextEncoder();
  let cleanup = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (text: string) => {
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          cleanup();
        }
      };
      send('retry: 2000\n: connected\n\n');
      const unsubscribe = events.subscribe((event: TraceEvent) => {
        if (tool && event.tool !== tool) return;
        send(`event: trace\ndata: ${JSON.stringify(event)}\n\n`);
      });
      const heartbeat = setInterval(() => send(': ping\n\n'), HEARTBEAT_MS);
      cleanup = () => {
        clearInterval(heartbeat);
        unsubscribe();
        try {
          controller.close();
        } catch {
          // already closed
        }
      };
      request.signal.addEventListener('abort', () => cleanup(), { once: true });
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
