import type { TraceQuery } from '../db/trace-store';
import { CALL_STATUSES, type CallStatus } from '../executor/types';

export { CALL_STATUSES };

/** Relative time ranges offered by the list's filter; `from` is now minus the span. */
export const TIME_RANGES = {
  '15m': { label: 'Last 15 minutes', ms: 15 * 60_000 },
  '1h': { label: 'Last hour', ms: 60 * 60_000 },
  '24h': { label: 'Last 24 hours', ms: 24 * 60 * 60_000 },
  '7d': { label: 'Last 7 days', ms: 7 * 24 * 60 * 60_000 },
} as const;
export type TimeRange = keyof typeof TIME_RANGES;

/** The traces list's filters as they live in the URL (`/?tool=&status=&session=&range=&q=&faulted=&from=&to=&cursor=`). */
export interface TraceFilters {
  tool?: string;
  status?: CallStatus;
  session?: string;
  range?: TimeRange;
  /** Absolute bounds, ISO 8601 or epoch ms. */
  from?: string;
  to?: string;
  q?: string;
  /** Only calls with an injected fault (`faulted=true`). */
  faulted?: true;
  cursor?: string;
}

type Params = Record<string, string | string[] | undefined> | URLSearchParams;

function read(params: Params, key: string): string | undefined {
  const value = params instanceof URLSearchParams ? params.get(key) : params[key];
  const first = Array.isArray(value) ? value[0] : value;
  const trimmed = first?.trim();
  return trimmed ? trimmed.slice(0, 256) : undefined;
}

/** Reads the filters from search params, dropping values that are not valid. */
export function parseTraceFilters(params: Params): TraceFilters {
  const filters: TraceFilters = {};
  const tool = read(params, 'tool');
  if (tool) filters.tool = tool;
  const status = read(params, 'status');
  if (status && (CALL_STATUSES as readonly string[]).includes(status)) filters.status = status as CallStatus;
  const session = read(params, 'session');
  if (session) filters.session = session;
  const range = read(params, 'range');
  if (range && range in TIME_RANGES) filters.range = range as TimeRange;
  const from = read(params, 'from');
  if (from && parseInstant(from) !== undefined) filters.from = from;
  const to = read(params, 'to');
  if (to && parseInstant(to) !== undefined) filters.to = to;
  const q = read(params, 'q');
  if (q) filters.q = q;
  if (read(params, 'faulted') === 'true') filters.faulted = true;
  const cursor = read(params, 'cursor');
  if (cursor) filters.cursor = cursor;
  return filters;
}

/** An instant given as epoch ms or ISO 8601; undefined when neither. */
export function parseInstant(text: string): number | undefined {
  const ms = /^\d{1,16}$/.test(text) ? Number(text) : Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
}

/** The store query for the filters, relative ranges resolved against `now`. */
export function toTraceQuery(filters: TraceFilters, now: number, limit = 50): TraceQuery {
  const query: TraceQuery = { limit };
  if (filters.tool) query.tool = filters.tool;
  if (filters.status) query.status = filters.status;
  if (filters.session) query.sessionId = filters.session;
  if (filters.q) query.text = filters.q;
  if (filters.faulted) query.faulted = true;
  if (filters.cursor) query.cursor = filters.cursor;
  if (filters.range) query.from = now - TIME_RANGES[filters.range].ms;
  if (filters.from) query.from = parseInstant(filters.from);
  if (filters.to) query.to = parseInstant(filters.to);
  return query;
}

/** The filters as search params; `overrides` replace (undefined removes). */
export function filtersToSearch(filters: TraceFilters, overrides: Partial<TraceFilters> = {}): string {
  const merged: TraceFilters = { ...filters, ...overrides };
  const params = new URLSearchParams();
  for (const key of ['tool', 'status', 'session', 'range', 'from', 'to', 'q', 'faulted', 'cursor'] as const) {
    const value = merged[key];
    if (value) params.set(key, String(value));
  }
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** Whether any filter (not the page cursor) is set. */
export function hasFilters(filters: TraceFilters): boolean {
  return Boolean(
    filters.tool ||
      filters.status ||
      filters.session ||
      filters.range ||
      filters.from ||
      filters.to ||
      filters.q ||
      filters.faulted,
  );
}

/** The filters as API query parameters (relative ranges resolved against `now`, no cursor). */
function apiParams(filters: TraceFilters, now: number): URLSearchParams {
  const query = toTraceQuery({ ...filters, cursor: undefined }, now);
  const params = new URLSearchParams();
  if (query.tool) params.set('tool', query.tool);
  if (query.status) params.set('status', query.status);
  if (query.sessionId) params.set('session', query.sessionId);
  if (query.text) params.set('q', query.text);
  if (query.faulted) params.set('faulted', 'true');
  if (query.from !== undefined) params.set('from', String(query.from));
  if (query.to !== undefined) params.set('to', String(query.to));
  return params;
}

/** The `GET /api/v1/traces` URL that fetches the first page for these filters. */
export function apiListUrl(filters: TraceFilters, now: number, limit = 50): string {
  const params = new URLSearchParams({ limit: String(limit) });
  for (const [key, value] of apiParams(filters, now)) params.set(key, value);
  return `/api/v1/traces?${params}`;
}

/** The `GET /api/v1/traces/export` URL: every call matching the filters, as JSON Lines. */
export function apiExportUrl(filters: TraceFilters, now: number): string {
  const params = apiParams(filters, now).toString();
  return `/api/v1/traces/export${params ? `?${params}` : ''}`;
}
