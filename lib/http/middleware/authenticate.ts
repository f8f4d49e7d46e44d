import type { MiddlewareHandler } from 'hono';
import type { Access } from '../../access/access';
import { credentialsOf } from '../../access/authenticator';
import { ApiError } from '../../errors';
import type { HttpEnv } from '../env';

/** The login page: where a person without a login is sent. */
export const LOGIN_PATH = '/login';

const PUBLIC_POSTS = new Set(['/auth/login', '/auth/logout']);
// `/api/v1/health` answers a probe without a key with its status alone (see routes/health.ts).
const PUBLIC_GETS = new Set([LOGIN_PATH, '/auth/session', '/favicon.ico', '/icon.svg', '/api/v1/health']);

/**
 * What needs no login: the login page and what it needs (its form's target, Next's static files,
 * the icon). A server action names the action to run in a header, on any page's path: never public.
 */
export function isPublicRequest(method: string, pathname: string, headers: { get(name: string): string | null }) {
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

/** Whether a path is for programs (the API, `/mcp`): they get a 401 to act on, never the login page. */
export function isProgramPath(pathname: string): boolean {
  return pathname === '/api' || pathname.startsWith('/api/') || pathname === '/mcp';
}

/** A page viewed without a login goes to the login page, remembering where the person was going. */
export function loginRedirect(pathname: string, search: string): string {
  return `${LOGIN_PATH}?next=${encodeURIComponent(pathname + search)}`;
}

/**
 * Authentication, the chain's second step: the request's principal from its key (bearer token or
 * login cookie), or local mode's one person. No principal: 401 UNAUTHENTICATED for programs, the
 * login page for a person's page view. Public requests (the login page) go on without one.
 */
export function authenticate(access: () => Pick<Access, 'authenticate'>): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const { method } = c.req;
    const pathname = c.req.path;
    const headers = c.req.raw.headers;
    if (isPublicRequest(method, pathname, headers)) return next();
    const auth = access().authenticate(credentialsOf(headers));
    if (!auth.ok) {
      if (!isProgramPath(pathname) && (method === 'GET' || method === 'HEAD')) {
        const url = new URL(c.req.url);
        return c.body(null, 307, { location: loginRedirect(pathname, url.search), 'cache-control': 'no-store' });
      }
      throw unauthenticated(auth.reason);
    }
    c.set('principal', auth.principal);
    return next();
  };
}

export function unauthenticated(reason: 'missing' | 'invalid'): ApiError {
  return new ApiError(
    'UNAUTHENTICATED',
    reason === 'invalid'
      ? 'The key sent is not valid here (wrong, unknown or revoked).'
      : 'This Toolscope requires a key: send "Authorization: Bearer <key>", or log in at /login.',
  );
}
