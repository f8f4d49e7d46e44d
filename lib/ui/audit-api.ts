import type { AuditEntry, AuditVerification } from '../access/audit-trail';

/** One entry as `GET /api/v1/audit` answers it. */
export type AuditEntryJson = AuditEntry;

/** A page of `GET /api/v1/audit`, newest first. */
export interface AuditPageJson {
  entries: AuditEntryJson[];
  next_cursor: string | null;
}

/** `GET /api/v1/audit/verify`'s answer. */
export type AuditVerifyJson = AuditVerification;

/** The page's filters, as the address bar keeps them; '' is "any". */
export interface AuditFilters {
  kind: string;
  /** A principal's id or name (exact). */
  principal: string;
  /** What the entries were done to: a trace, session, key or rule id (exact). */
  target: string;
}

export const AUDIT_PAGE_SIZE = 100;
/** Longest principal or target the API takes. */
const MAX_TEXT = 256;

const first = (value: string | string[] | undefined) => ((Array.isArray(value) ? value[0] : value) ?? '').trim();

/** The filters of a request's query (`?kind=&principal=&target=`); a kind that is not one of `kinds` is dropped. */
export function auditFiltersOf(
  params: Record<string, string | string[] | undefined>,
  kinds: readonly string[],
): AuditFilters {
  const kind = first(params.kind);
  return {
    kind: kinds.includes(kind) ? kind : '',
    principal: first(params.principal).slice(0, MAX_TEXT),
    target: first(params.target).slice(0, MAX_TEXT),
  };
}

function filterParams(filters: AuditFilters): URLSearchParams {
  const params = new URLSearchParams();
  for (const key of ['kind', 'principal', 'target'] as const) {
    const value = filters[key].trim();
    if (value) params.set(key, value);
  }
  return params;
}

/** `?kind=…&principal=…&target=…` for the filters (what the address bar keeps), '' when none is set. */
export function auditSearch(filters: AuditFilters): string {
  const search = filterParams(filters).toString();
  return search ? `?${search}` : '';
}

/** Whether any filter is set. */
export const isFiltered = (filters: AuditFilters) => Object.values(filters).some((value) => value.trim() !== '');

async function getJson<T>(url: string): Promise<T> {
  const response = await fetch(url, { cache: 'no-store' });
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new Error(body?.error?.message ?? `HTTP ${response.status}`);
  return body as T;
}

/** One page of the trail from the API, older than `cursor`; throws with the API's message on an error answer. */
export function fetchAuditPage(filters: AuditFilters, cursor: string | null): Promise<AuditPageJson> {
  const params = filterParams(filters);
  params.set('limit', String(AUDIT_PAGE_SIZE));
  if (cursor) params.set('cursor', cursor);
  return getJson<AuditPageJson>(`/api/v1/audit?${params}`);
}

/** `GET /api/v1/audit/verify`: walks the whole hash chain. */
export const verifyAuditChain = () => getJson<AuditVerifyJson>('/api/v1/audit/verify');
