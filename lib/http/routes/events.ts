import { ApiError } from '../../errors';
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
     * `GET /api/v1/events?tool=&session=&trace=&progress=`: a server-sent event stream of calls,
     * approvals, fault rules and tool changes, every event with an id, resumable with
     * `Last-Event-ID` (or `?last_event_id=`), with an `event: ping` heartbeat. See
     * `eventStreamResponse`. `progress` events come to a `trace=` stream for that call, and to a
     * stream with `progress=all` for every call (coalesced per flush: at most one per call and
     * batch); other values of `progress` are refused (400 INVALID_QUERY).
     */
    method: 'GET',
    path: '/api/v1/events',
    action: 'calls.read',
    handle(c, ts) {
      const headers = c.req.raw.headers;
      const params = new URL(c.req.url).searchParams;
      const progress = params.get('progress');
      if (progress !== null && progress !== 'all') {
        throw new ApiError('INVALID_QUERY', `progress: only "all" is accepted (got "${progress.slice(0, 40)}").`);
      }
      return eventStreamResponse(ts.events, {
        tool: c.req.query('tool') || null,
        trace: bounded(c.req.query('trace')),
        session: bounded(c.req.query('session')),
        progress: progress === 'all' ? 'all' : null,
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
