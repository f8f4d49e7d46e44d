import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** The cookie the login form sets: http-only, SameSite=Strict, holding a value derived from the token. */
export const SESSION_COOKIE = 'toolscope_session';

/** How long a login lasts: 30 days, or until the token changes (the cookie is derived from it). */
export const SESSION_MAX_AGE_S = 30 * 24 * 60 * 60;

/** A token shorter than this is refused at start: it would be guessable. */
export const MIN_TOKEN_LENGTH = 16;

function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/**
 * Whether `given` equals `expected`, in time independent of where they differ: both are hashed
 * first, so `timingSafeEqual` compares two buffers of one length whatever the lengths given.
 */
export function tokensMatch(given: string, expected: string): boolean {
  return timingSafeEqual(sha256(given), sha256(expected));
}

/**
 * The session cookie's value for `token`: an HMAC of it, so that the cookie is not the token
 * itself (a cookie read off a browser does not give the bearer token for scripts) and every
 * login ends when the token is changed.
 */
export function sessionValue(token: string): string {
  return createHmac('sha256', token).update('toolscope-session-v1').digest('base64url');
}

/** The value of cookie `name` in a `Cookie` header, or null. */
export function readCookie(header: string | null, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(header: string | null): string | null {
  const match = header?.match(/^\s*Bearer\s+(\S+)\s*$/i);
  return match?.[1] ?? null;
}

/**
 * Whether a request with these headers carries the token: as a bearer token (agents, scripts)
 * or as the session cookie the login form set (people).
 */
export function carriesToken(headers: { get(name: string): string | null }, token: string): boolean {
  const bearer = bearerToken(headers.get('authorization'));
  if (bearer !== null) return tokensMatch(bearer, token);
  const cookie = readCookie(headers.get('cookie'), SESSION_COOKIE);
  return cookie !== null && tokensMatch(cookie, sessionValue(token));
}
