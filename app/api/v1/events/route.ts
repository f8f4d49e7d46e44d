import { eventStreamResponse } from '@/lib/api/event-stream';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

/**
 * `GET /api/v1/events?tool=&trace=`: a server-sent event stream of trace changes (`begin`,
 * `update`, `finish`; `progress` too when following one `trace`) with an `event: ping` heartbeat
 * every 5 s. See `eventStreamResponse`. This route serves `next dev`; `npm start` serves the
 * stream from the agent path (lib/agent-path/events-route.ts).
 */
export function GET(request: Request) {
  const params = new URL(request.url).searchParams;
  const trace = params.get('trace');
  return eventStreamResponse(request.signal, getToolscope().events, {
    tool: params.get('tool'),
    trace: trace && trace.length <= 256 ? trace : null,
  });
}
