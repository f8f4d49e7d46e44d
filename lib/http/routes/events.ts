import { lastEventIdOf } from '../../event-frames';
import { acceptsGzip } from '../../sse-gzip';
import { eventStreamResponse } from '../event-stream';
import { defineRoutes } from '../route';

/** An id-like parameter: ignored when absent or absurdly long. */
function bounded(value: string | undefined): string | null {
  return value && value.length <= 256 ? value : null;
}

export default defineRoutes([
  {
    /**
     * `GET /api/v1/events?tool=&session=&trace=`: a server-sent event stream of calls, approvals,
     * fault rules and tool changes, every event with an id, resumable with `Last-Event-ID` (or
     * `?last_event_id=`), with an `event: ping` heartbeat. See `eventStreamResponse`.
     */
    method: 'GET',
    path: '/api/v1/events',
    action: 'calls.read',
    handle(c, ts) {
      const headers = c.req.raw.headers;
      const params = new URL(c.req.url).searchParams;
      return eventStreamResponse(ts.events, {
        tool: c.req.query('tool') || null,
        trace: bounded(c.req.query('trace')),
        session: bounded(c.req.query('session')),
        principal: c.get('reach') === 'own' ? c.get('principal').id : null,
        lastEventId: lastEventIdOf(headers.get('last-event-id'), params),
        gzip: acceptsGzip(headers.get('accept-encoding') ?? undefined),
        heartbeatMs: c.get('app').heartbeatMs,
        headOnly: c.req.method === 'HEAD',
        drop: c.env?.outgoing ? () => c.env.outgoing?.destroy() : undefined,
      });
    },
  },
]);
