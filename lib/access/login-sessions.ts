import { randomBytes } from 'node:crypto';
import type { SqliteDatabase } from '../db/open-database';
import { sha256Hex } from './key-store';

/** How long a login lasts at most (the cookie's Max-Age too): 30 days, unless logged out or revoked first. */
export const LOGIN_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;

export interface LoginSessions {
  /** Starts a login for the key `keyRef`; returns the cookie's value (stored only hashed). */
  start(keyRef: number, address: string | null): string;
  /** The key of a live login (not ended, not expired), or null. */
  keyOf(cookie: string): number | null;
  /** Ends a login (logout); returns its key's ref, or null when it was not live. */
  end(cookie: string): number | null;
  /** Ends every login made with the key (it was revoked). */
  endAllOf(keyRef: number): void;
}

/** Server-side login sessions (`login_sessions`): a random id in the cookie, its SHA-256 in the database. */
export function createLoginSessions(db: SqliteDatabase, now: () => number = Date.now): LoginSessions {
  const insert = db.prepare(
    'INSERT INTO login_sessions (id_hash, key_ref, created_at, expires_at, address) VALUES (?, ?, ?, ?, ?)',
  );
  const live = db
    .prepare('SELECT key_ref FROM login_sessions WHERE id_hash = ? AND ended_at IS NULL AND expires_at > ?')
    .pluck();
  const endOne = db.prepare(
    'UPDATE login_sessions SET ended_at = @now WHERE id_hash = @id AND ended_at IS NULL AND expires_at > @now RETURNING key_ref',
  );
  const endKey = db.prepare('UPDATE login_sessions SET ended_at = ? WHERE key_ref = ? AND ended_at IS NULL');
  // Logins that ended or expired are of no use: they go when the store opens (the audit trail keeps their story).
  db.prepare('DELETE FROM login_sessions WHERE ended_at IS NOT NULL OR expires_at <= ?').run(now());
  return {
    start(keyRef, address) {
      const cookie = randomBytes(32).toString('base64url');
      const at = now();
      insert.run(sha256Hex(cookie), keyRef, at, at + LOGIN_MAX_AGE_MS, address);
      return cookie;
    },
    keyOf(cookie) {
      if (cookie.length > 128) return null;
      return (live.get(sha256Hex(cookie), now()) as number | undefined) ?? null;
    },
    end(cookie) {
      if (cookie.length > 128) return null;
      const row = endOne.get({ now: now(), id: sha256Hex(cookie) }) as { key_ref: number } | undefined;
      return row?.key_ref ?? null;
    },
    endAllOf(keyRef) {
      endKey.run(now(), keyRef);
    },
  };
}
