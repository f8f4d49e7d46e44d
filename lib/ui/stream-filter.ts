import { type Filter, passes, type TraceEvent } from '../events';

/** What one view asks of the event stream: the `tool=`, `session=` and `trace=` of `GET /api/v1/events`. */
export interface StreamFilter {
  tool?: string | null;
  session?: string | null;
  trace?: string | null;
}

/** A view's filter as the server's bus holds it (the principal is the server's to apply). */
export function serverFilterOf(filter: StreamFilter): Filter {
  return { tool: filter.tool || null, session: filter.session || null, trace: filter.trace || null, principal: null };
}

/**
 * Whether a stream opened with `filter` would have got this trace event: the server's own `passes`,
 * so that views filtering the browser's one unfiltered stream (`progress=all`) see what a stream
 * of their own would show. Progress events only for a followed trace.
 */
export function hearsTraceEvent(filter: Filter, event: TraceEvent): boolean {
  return passes({ kind: 'trace', data: event }, filter);
}

/** Whether a stream opened with `filter` gets `event: tools` (unfiltered streams only). */
export function hearsToolsEvents(filter: Filter): boolean {
  return passes({ kind: 'tools', data: { type: 'changed', server: null, at: 0 } }, filter);
}
