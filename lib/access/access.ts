import { isLoopbackHost } from '../config';
import type { SqliteDatabase } from '../db/open-database';
import { tokensMatch } from './access-token';
import { type AuditTrail, createAuditTrail } from './audit-trail';
import type { Authentication, Credentials } from './authenticator';
import { createKeyStore, type KeyRecord, type KeyStore, sha256Hex, TOKEN_PREFIX } from './key-store';
import { createLoginSessions, type LoginSessions } from './login-sessions';
import { createLoginThrottle, type LoginThrottle } from './login-throttle';
import type { Principal } from './principal';

/** What a login attempt came to. */
export type LoginOutcome =
  | { ok: true; principal: Principal; cookie: string }
  | { ok: false; reason: 'wrong-key' | 'agent-key' }
  | { ok: false; reason: 'throttled'; retryAfterS: number };

export interface Access {
  /** One person with every role: no key set up at all, and the server is on loopback. */
  localMode(): boolean;
  /** The principal of a request's credentials (see `Authentication`). */
  authenticate(credentials: Credentials): Authentication;
  /** A person's login with a key: a login session, rate limited per address. */
  login(token: string, address: string): LoginOutcome;
  /** Ends a login; returns whose it was, or null when it was not live. */
  logout(cookie: string): Principal | null;
  /** The stored principal a trace or an entry points at. */
  principalOf(record: KeyRecord): Principal;
  keys: KeyStore;
  sessions: LoginSessions;
  audit: AuditTrail;
}

export interface AccessOptions {
  db: SqliteDatabase;
  /** `TOOLSCOPE_TOKEN` (the bootstrap admin key `admin`) and where the server listens. */
  config: { token: string | null; host: string };
  now?: () => number;
  throttle?: LoginThrottle;
}

/**
 * Principals: who each request is, from the data folder's keys (`npm run keys`, the Keys page,
 * `POST /api/v1/keys`), TOOLSCOPE_TOKEN, or local mode.
 * 1. A bearer token is TOOLSCOPE_TOKEN (the admin `admin`) or a named key, looked up by its
 *    SHA-256; one that is wrong, unknown or revoked is `invalid` — in local mode too.
 * 2. Else the login cookie: a live login session of a key that is not revoked.
 * 3. Else, in local mode (loopback, no TOOLSCOPE_TOKEN, no key ever made), the local person with
 *    every role; otherwise `missing`.
 */
export function createAccess(options: AccessOptions): Access {
  const now = options.now ?? Date.now;
  const { token, host } = options.config;
  const keys = createKeyStore(options.db, now);
  const sessions = createLoginSessions(options.db, now);
  const audit = createAuditTrail(options.db, now);
  const throttle = options.throttle ?? createLoginThrottle();
  const loopback = isLoopbackHost(host);
  // The rows calls and entries point at: made once, at start.
  const tokenRow = token ? keys.principalRow('token') : null;
  const principals = new Map<number, Principal>();
  const principalOf = (record: KeyRecord): Principal => {
    let principal = principals.get(record.ref);
    if (!principal) {
      principal = Object.freeze({
        id: record.id,
        name: record.name,
        role: record.role,
        kind: record.kind,
        ref: record.ref,
      });
      principals.set(record.ref, principal);
    }
    return principal;
  };
  const localMode = () => token === null && loopback && !keys.anyKeys();
  const local = () => principalOf(keys.principalRow('local'));

  /** The key a token is: TOOLSCOPE_TOKEN's row, or a named key that is not revoked. */
  const keyOfToken = (given: string): KeyRecord | null => {
    if (tokenRow && token && tokensMatch(given, token)) return tokenRow;
    if (!given.startsWith(TOKEN_PREFIX) || given.length > 128) return null;
    const record = keys.byTokenHash(sha256Hex(given));
    return record && record.revokedAt === null ? record : null;
  };

  return {
    localMode,
    authenticate(credentials) {
      if (credentials.bearer !== null) {
        const record = keyOfToken(credentials.bearer);
        if (!record) return { ok: false, reason: 'invalid' };
        if (record.kind === 'key') keys.touch(record, now());
        return { ok: true, principal: principalOf(record) };
      }
      if (credentials.session !== null) {
        const ref = sessions.keyOf(credentials.session);
        const record = ref === null ? undefined : keys.byRef(ref);
        if (record && record.revokedAt === null) {
          // A person's key is in use while they work logged in with it, not only as a bearer token.
          if (record.kind === 'key') keys.touch(record, now());
          return { ok: true, principal: principalOf(record) };
        }
      }
      if (localMode()) return { ok: true, principal: local() };
      return { ok: false, reason: 'missing' };
    },
    login(given, address) {
      const at = now();
      const wait = throttle.waitOf(address, at);
      if (wait > 0) return { ok: false, reason: 'throttled', retryAfterS: Math.ceil(wait / 1000) };
      const record = keyOfToken(given.trim());
      if (!record) {
        throttle.failed(address, at);
        return { ok: false, reason: 'wrong-key' };
      }
      // An agent's key opens no login: it does not reset the address's failures either.
      if (record.role === 'agent') return { ok: false, reason: 'agent-key' };
      throttle.succeeded(address);
      if (record.kind === 'key') keys.touch(record, at);
      return { ok: true, principal: principalOf(record), cookie: sessions.start(record.ref, address) };
    },
    logout(cookie) {
      const ref = sessions.end(cookie);
      const record = ref === null ? undefined : keys.byRef(ref);
      return record ? principalOf(record) : null;
    },
    principalOf,
    keys,
    sessions,
    audit,
  };
}
