import type { SessionDetailJson, SessionJson } from '@/lib/api/sessions';

/** A page of `GET /api/v1/sessions`. */
export interface SessionsPageJson {
  sessions: SessionJson[];
  next_cursor: string | null;
}

/** The list's filters: `q` (substring of the session id) and failed-only. */
export interface SessionFilters {
  q: string;
  failed: boolean;
}

export const SESSIONS_PAGE_SIZE = 50;

/** `/sessions?q=…&failed=true` for the filters (what the address bar keeps). */
export function sessionsSearch({ q, failed }: SessionFilters): string {
  const params = new URLSearchParams();
  if (q) params.set('q', q);
  if (failed) params.set('failed', 'true');
  const search = params.toString();
  return search ? `?${search}` : '';
}

/** One page of sessions from the API; throws with the API's message on an error answer. */
export async function fetchSessionsPage(filters: SessionFilters, cursor: string | null): Promise<SessionsPageJson> {
  const params = new URLSearchParams({ limit: String(SESSIONS_PAGE_SIZE) });
  if (filters.q) params.set('q', filters.q);
  if (filters.failed) params.set('failed', 'true');
  if (cursor) params.set('cursor', cursor);
  const response = await fetch(`/api/v1/sessions?${params}`, { cache: 'no-store' });
  const body = await response.json();
  if (!response.ok) throw new Error(body?.error?.message ?? `sessions list: HTTP ${response.status}`);
  return body as SessionsPageJson;
}

/** One session's view data; null when it no longer exists (its calls were deleted). */
export async function fetchSession(id: string): Promise<SessionDetailJson | null> {
  const response = await fetch(`/api/v1/sessions/${encodeURIComponent(id)}`, { cache: 'no-store' });
  if (response.status === 404) return null;
  const body = await response.json();
  if (!response.ok) throw new Error(body?.error?.message ?? `session: HTTP ${response.status}`);
  return body as SessionDetailJson;
}
