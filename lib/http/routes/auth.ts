import { deleteCookie, setCookie } from 'hono/cookie';
import { SESSION_COOKIE } from '../../access/access-token';
import { credentialsOf } from '../../access/authenticator';
import { LOGIN_MAX_AGE_MS } from '../../access/login-sessions';
import { safeNextPath } from '../../access/safe-next-path';
import type { Toolscope } from '../../server/create-toolscope';
import { clientAddress } from '../client-address';
import type { HttpContext } from '../env';
import { LOGIN_PATH } from '../middleware/authenticate';
import { defineRoutes } from '../route';

/** Who a failed login was: nobody yet. */
const ANONYMOUS = { id: 'anonymous', name: 'anonymous', role: 'none' } as const;

/**
 * A 303 to a path on this server, as a relative `Location`: the browser stays on the host it
 * used (an absolute URL would name the host the server was started with, e.g. `localhost`).
 */
function seeOther(c: HttpContext, pathname: string): Response {
  return c.body(null, 303, { location: pathname, 'cache-control': 'no-store' });
}

/** Whether the browser reached us over HTTPS (directly or through a proxy): then the cookie is Secure. */
function overHttps(c: HttpContext): boolean {
  return new URL(c.req.url).protocol === 'https:' || c.req.header('x-forwarded-proto') === 'https';
}

/** The login form's fields (`application/x-www-form-urlencoded`, as a plain form posts them). */
function formOf(c: HttpContext): URLSearchParams {
  return new URLSearchParams(c.get('body')?.toString('utf8') ?? '');
}

function appendAudit(ts: Toolscope, entry: Parameters<Toolscope['access']['audit']['append']>[0]): void {
  try {
    ts.access.audit.append(entry);
  } catch (error) {
    console.error(`[toolscope] could not write the audit entry (${entry.kind}):`, error);
  }
}

/** The 429 of an address that tried too many wrong keys: JSON for programs, a line of HTML for a browser's form. */
function throttled(c: HttpContext, retryAfterS: number, next: string): Response {
  const headers = { 'retry-after': String(retryAfterS), 'cache-control': 'no-store' };
  const message = `Too many wrong keys from this address: try again in ${retryAfterS} s.`;
  if (!c.req.header('accept')?.includes('text/html')) {
    return c.json({ error: { code: 'TOO_MANY_REQUESTS', message } }, 429, headers);
  }
  const back = `${LOGIN_PATH}?${new URLSearchParams({ next })}`;
  return c.html(
    `<!doctype html><meta charset="utf-8"><title>Too many attempts · Toolscope</title><p>${message}</p><p><a href="${back.replace(/&/g, '&amp;')}">Back to the login</a></p>`,
    429,
    headers,
  );
}

export default defineRoutes([
  {
    /**
     * The login form's target: `token` (a key, or TOOLSCOPE_TOKEN) and `next`. The right key
     * starts a login session — its random id in the cookie (HttpOnly, SameSite=Strict), its hash
     * in the database — and goes on to where the person was going; a wrong one goes back to the
     * form saying so, and after five from one address each further one waits longer (429).
     */
    method: 'POST',
    path: '/auth/login',
    action: null,
    body: 'form',
    maxBodyBytes: 16 * 1024,
    handle(c, ts) {
      const form = formOf(c);
      const next = safeNextPath(form.get('next') ?? '/');
      const address = clientAddress(c);
      const outcome = ts.access.login(form.get('token') ?? '', address);
      if (!outcome.ok) {
        if (outcome.reason === 'throttled') return throttled(c, outcome.retryAfterS, next);
        if (outcome.reason === 'wrong-key') {
          appendAudit(ts, { principal: ANONYMOUS, kind: 'login.failed', target: null, address });
        }
        return seeOther(c, `${LOGIN_PATH}?${new URLSearchParams({ error: outcome.reason, next })}`);
      }
      appendAudit(ts, { principal: outcome.principal, kind: 'login', target: outcome.principal.id, address });
      setCookie(c, SESSION_COOKIE, outcome.cookie, {
        httpOnly: true,
        sameSite: 'Strict',
        secure: overHttps(c),
        path: '/',
        maxAge: LOGIN_MAX_AGE_MS / 1000,
      });
      return seeOther(c, next);
    },
  },
  {
    /** The header's "Log out": ends the login session, clears its cookie, and shows the login form. */
    method: 'POST',
    path: '/auth/logout',
    action: null,
    handle(c, ts) {
      const { session } = credentialsOf(c.req.raw.headers);
      const principal = session === null ? null : ts.access.logout(session);
      if (principal) {
        appendAudit(ts, { principal, kind: 'logout', target: principal.id, address: clientAddress(c) });
      }
      deleteCookie(c, SESSION_COOKIE, { path: '/', httpOnly: true, sameSite: 'Strict' });
      return seeOther(c, LOGIN_PATH);
    },
  },
  {
    /**
     * Whether this request is logged in, for the login page: a person who followed a link from
     * another site arrives without the SameSite=Strict cookie, and the page's own same-site request
     * here finds it and sends them on.
     */
    method: 'GET',
    path: '/auth/session',
    action: null,
    handle(c, ts) {
      const auth = ts.access.authenticate(credentialsOf(c.req.raw.headers));
      return c.json({ signed_in: auth.ok }, 200, { 'cache-control': 'no-store' });
    },
  },
]);
