import { eventStreamResponse } from '@/lib/api/event-stream';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

/**
 * `GET /api/v1/events?tool=&trace=`: a server-sent event stream of trace changes (`begin`,
 * `update`, `finish`; `progress` too when following one `trace`) with an `event: ping` heartbeat
 * every 5 s. See `eventStreamResponse`.
 */
export function GET(request: Request) {
  const params = new URL(request.url).searchParams;
  const trace = params.get('trace');
  return eventStreamResponse(request.signal, getToolscope().events, {
    tool: params.get('tool'),
    trace: trace && trace.length <= 256 ? trace : null,
  });
}
