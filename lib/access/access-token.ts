import { createHash, timingSafeEqual } from 'node:crypto';

/** The cookie a login sets: HttpOnly, SameSite=Strict, holding the login session's random id. */
export const SESSION_COOKIE = 'toolscope_session';

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
