import type { ServerReach } from './event-stream-connection';

/** Where a probe asks: the event stream's own route, so that its answer is the stream's (HEAD: headers only). */
export const PROBE_URL = '/api/v1/events';
/** A probe not answered in this long counts as the server not answering. */
export const PROBE_TIMEOUT_MS = 5_000;
/** Failures of other requests ask again at most this often. */
export const PROBE_SPACING_MS = 5_000;

/**
 * `HEAD /api/v1/events`: whether the server answers, and whether it wants a login (401) — what a
 * failed EventSource or a failed fetch cannot tell. Any other answer is `ok` (it answers).
 */
export async function probeServer(fetcher: typeof fetch = fetch): Promise<ServerReach> {
  try {
    const response = await fetcher(PROBE_URL, {
      method: 'HEAD',
      cache: 'no-store',
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    return response.status === 401 ? 'unauthenticated' : 'ok';
  } catch {
    return 'unreachable';
  }
}

/** The login page, sent back to `path` (path and query) after logging in; null on the login page itself. */
export function loginPathFor(path: string): string | null {
  if (path === '/login' || path.startsWith('/login?')) return null;
  return `/login?next=${encodeURIComponent(path)}`;
}

/** Leaves an open page that now gets 401s for the login page, which comes back here. */
export function goToLogin(): void {
  const target = loginPathFor(window.location.pathname + window.location.search);
  if (target) window.location.assign(target);
}

/**
 * Checks, after a request failed, whether the server now wants a login: one probe at a time and at
 * most one per PROBE_SPACING_MS, whatever the number of failures; a 401 calls `onUnauthenticated`.
 * @example const check = createLoginCheck({ probe: probeServer, onUnauthenticated: goToLogin, now: Date.now });
 */
export function createLoginCheck(ports: {
  probe: () => Promise<ServerReach>;
  onUnauthenticated: () => void;
  now: () => number;
}) {
  let busy = false;
  let last = Number.NEGATIVE_INFINITY;
  return {
    /** A request failed (an HTTP error or no answer): probe unless one ran lately. */
    async failed(): Promise<void> {
      if (busy || ports.now() - last < PROBE_SPACING_MS) return;
      busy = true;
      last = ports.now();
      try {
        if ((await ports.probe()) === 'unauthenticated') ports.onUnauthenticated();
      } finally {
        busy = false;
      }
    },
  };
}
