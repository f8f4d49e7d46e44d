import { bearerToken, readCookie, SESSION_COOKIE } from './access-token';
import type { Principal } from './principal';

/** What a request brings to prove who it is. */
export interface Credentials {
  /** `Authorization: Bearer <token>`: agents and scripts. */
  bearer: string | null;
  /** The login's session cookie: people in the browser. */
  session: string | null;
}

/** Reads a request's credentials from its headers (a web `Request`'s, Next's `headers()`). */
export function credentialsOf(headers: { get(name: string): string | null }): Credentials {
  return {
    bearer: bearerToken(headers.get('authorization')),
    session: readCookie(headers.get('cookie'), SESSION_COOKIE),
  };
}

/**
 * Who a request is: its principal, or why there is none — `missing` (no credentials where they
 * are needed) or `invalid` (a key that is wrong, unknown or revoked).
 */
export type Authentication = { ok: true; principal: Principal } | { ok: false; reason: 'missing' | 'invalid' };
