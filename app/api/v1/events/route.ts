import { eventStreamResponse } from '@/lib/api/event-stream';
import { lastEventIdOf } from '@/lib/event-frames';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

/**
 * `GET /api/v1/events?tool=&session=&trace=`: a server-sent event stream of calls, approvals and
 * fault rules, every event with an id, resumable with `Last-Event-ID` (or `?last_event_id=`),
 * with an `event: ping` heartbeat every 5 s. See `eventStreamResponse`. This route serves `next dev`; `npm start` serves the
 * stream from the agent path (lib/agent-path/events-route.ts).
 */
export function GET(request: Request) {
  const params = new URL(request.url).searchParams;
  return eventStreamResponse(request.signal, getToolscope().events, {
    tool: params.get('tool'),
    trace: bounded(params.get('trace')),
    session: bounded(params.get('session')),
    lastEventId: lastEventIdOf(request.headers.get('last-event-id'), params),
  });
}

/** An id-like parameter: ignored when absent or absurdly long. */
function bounded(value: string | null): string | null {
  return value && value.length <= 256 ? value : null;
}
