import { carriesToken } from './access-token';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);
const WILDCARD = new Set(['0.0.0.0', '::', '[::]']);

function hostnameOf(host: string): string {
  const bracketed = host.match(/^\[[^\]]*\]/)?.[0];
  return (bracketed ?? host.split(':')[0] ?? '').toLowerCase();
}

/**
 * Where the app listens, which other names it answers to, and the token it asks for:
 * `Config.host`, `Config.allowedHosts` and `Config.token`.
 */
export interface GuardSettings {
  host: string;
  allowedHosts: readonly string[];
  /** `TOOLSCOPE_TOKEN`: when set, every request but the login page's must carry it. */
  token?: string | null;
}

// The allowed names change only with the settings: built once, not on every request.
const allowedBySettings = new WeakMap<GuardSettings, Set<string>>();
function allowedHosts(settings: GuardSettings): Set<string> {
  let allowed = allowedBySettings.get(settings);
  if (!allowed) {
    allowed = new Set([...LOOPBACK, settings.host.toLowerCase(), ...settings.allowedHosts.map((h) => h.toLowerCase())]);
    allowed.delete('');
    allowedBySettings.set(settings, allowed);
  }
  return allowed;
}

export type GuardVerdict =
  | { ok: true }
  | {
      ok: false;
      status: number;
      code: string;
      message: string;
      /** Where to send a person instead (a page asked for without the token): the login page. */
      location?: string;
    };

/** What the guard reads of a request: a web `Request`, Next's, or the agent path's view of Node's. */
export interface GuardedRequest {
  method: string;
  /** The path and query (Node's `req.url`) or the whole URL (a web `Request`'s); without it, `/`. */
  url?: string;
  headers: { get(name: string): string | null };
}

const OK: GuardVerdict = { ok: true };
const JSON_TYPE = /^application\/([\w.+-]*\+)?json\b/i;

/** The login page and what it needs (its form's target, Next's static files, the icon) need no token. */
export const LOGIN_PATH = '/login';
const PUBLIC_POSTS = new Set(['/auth/login', '/auth/logout']);
const PUBLIC_GETS = new Set([LOGIN_PATH, '/auth/session', '/favicon.ico', '/icon.svg']);

function isPublic(method: string, pathname: string, headers: GuardedRequest['headers']): boolean {
  // A server action runs whatever action its header names, on any page's path: never public.
  if (headers.get('next-action') !== null) return false;
  if (method === 'GET' || method === 'HEAD') return PUBLIC_GETS.has(pathname) || isStaticFile(pathname);
  return method === 'POST' && PUBLIC_POSTS.has(pathname);
}

/** Next's build output, and nothing an encoded `..` could make of that prefix. */
function isStaticFile(pathname: string): boolean {
  if (!pathname.startsWith('/_next/static/')) return false;
  try {
    const decoded = decodeURIComponent(pathname);
    return !decoded.includes('..') && !decoded.includes('\\');
  } catch {
    return false;
  }
}

/** The path and query of a request's URL, which is either a path (Node) or an absolute URL (web). */
function pathOf(url: string | undefined): { pathname: string; search: string } {
  try {
    const parsed = new URL(url ?? '/', 'http://toolscope.invalid');
    return { pathname: parsed.pathname, search: parsed.search };
  } catch {
    return { pathname: '/', search: '' };
  }
}

/**
 * The token check: 401 for the API (and for anything but a page view), a redirect to the login
 * page, remembering where the person was going, for a page.
 */
function checkToken(request: GuardedRequest, token: string): GuardVerdict {
  const { pathname, search } = pathOf(request.url);
  if (isPublic(request.method, pathname, request.headers) || carriesToken(request.headers, token)) return OK;
  // The MCP endpoint is for programs, like the API: a 401 they can act on, not the login page.
  const page = pathname !== '/api' && !pathname.startsWith('/api/') && pathname !== '/mcp';
  if (page && (request.method === 'GET' || request.method === 'HEAD')) {
    return {
      ok: false,
      status: 307,
      code: 'UNAUTHORIZED',
      message: 'Log in with the Toolscope token first.',
      location: `${LOGIN_PATH}?next=${encodeURIComponent(pathname + search)}`,
    };
  }
  return {
    ok: false,
    status: 401,
    code: 'UNAUTHORIZED',
    message: 'This Toolscope requires its token: send "Authorization: Bearer <TOOLSCOPE_TOKEN>", or log in at /login.',
  };
}

/**
 * Refuses requests a web page on another site could make to a Toolscope on this machine.
 * 1. DNS rebinding: the Host header must name a loopback address (or the `HOST` the server was
 *    bound to, or one of `TOOLSCOPE_ALLOWED_HOSTS`), unless the server listens on every interface.
 * 2. Cross-site writes: a request that is not GET or HEAD and carries an `Origin` must come from
 *    the same host.
 * 3. The token, when `TOOLSCOPE_TOKEN` is set: as a bearer token or the login's session cookie,
 *    compared in constant time. Only the login page and its static files go without.
 */
export function guardRequest(request: GuardedRequest, settings: GuardSettings): GuardVerdict {
  const host = request.headers.get('host') ?? '';
  if (!WILDCARD.has(settings.host.toLowerCase())) {
    if (!allowedHosts(settings).has(hostnameOf(host))) {
      return {
        ok: false,
        status: 421,
        code: 'HOST_NOT_ALLOWED',
        message: `Toolscope answers requests for loopback hosts only, not "${host}". Set TOOLSCOPE_ALLOWED_HOSTS to add one.`,
      };
    }
  }
  const origin = request.headers.get('origin');
  if (origin && request.method !== 'GET' && request.method !== 'HEAD') {
    let originHost = '';
    try {
      originHost = new URL(origin).host;
    } catch {
      // "null" or garbage: not the same host
    }
    if (originHost.toLowerCase() !== host.toLowerCase()) {
      return {
        ok: false,
        status: 403,
        code: 'CROSS_ORIGIN',
        message: `Requests from ${origin} may not change anything here.`,
      };
    }
  }
  if (settings.token) return checkToken(request, settings.token);
  return OK;
}

/**
 * A body that changes something must be sent as JSON: a cross-site form or a "simple" fetch
 * cannot send that without a CORS preflight, which Toolscope never grants.
 */
export function guardJsonBody(contentType: string | null | undefined): GuardVerdict {
  if (JSON_TYPE.test(contentType ?? '')) return OK;
  return {
    ok: false,
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: 'Send the body as JSON with content-type: application/json.',
  };
}
