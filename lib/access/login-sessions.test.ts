import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../db/open-database';
import { sha256Hex } from './key-store';
import { createLoginSessions, LOGIN_MAX_AGE_MS, type LoginSessions } from './login-sessions';

/**
 * Login sessions (`login_sessions`) on a migrated SQLite database: a login's cookie finds its key
 * until it is ended, all of its key's logins are ended, or it expires (time injected); the cookie
 * itself is never stored, only its SHA-256.
 */

let db: SqliteDatabase;
let time: number;
let sessions: LoginSessions;

beforeEach(() => {
  db = openDatabase(':memory:');
  time = 1_700_000_000_000;
  sessions = createLoginSessions(db, () => time);
});

afterEach(() => db.close());

describe('createLoginSessions', () => {
  it('starts a login whose cookie finds its key', () => {
    const cookie = sessions.start(7, '127.0.0.1');
    expect(cookie).toMatch(/^[A-Za-z0-9_-]{43}$/); // 256 random bits, base64url
    expect(sessions.keyOf(cookie)).toBe(7);
    expect(sessions.start(7, '127.0.0.1')).not.toBe(cookie);
  });

  it('stores the cookie only as its SHA-256, with when, how long and from where', () => {
    const cookie = sessions.start(3, '10.0.0.5');
    const rows = db.prepare('SELECT * FROM login_sessions').all();
    expect(rows).toEqual([
      {
        id_hash: sha256Hex(cookie),
        key_ref: 3,
        created_at: time,
        expires_at: time + LOGIN_MAX_AGE_MS,
        ended_at: null,
        address: '10.0.0.5',
      },
    ]);
    expect(JSON.stringify(rows)).not.toContain(cookie);
  });

  it('finds nothing for an unknown, a hashed or an overlong cookie', () => {
    const cookie = sessions.start(1, null);
    expect(sessions.keyOf('nope')).toBeNull();
    expect(sessions.keyOf(sha256Hex(cookie))).toBeNull(); // what a stolen database holds is no cookie
    expect(sessions.keyOf('x'.repeat(129))).toBeNull();
    expect(sessions.end('x'.repeat(129))).toBeNull();
  });

  it('ends a login at logout, once', () => {
    const cookie = sessions.start(5, null);
    const other = sessions.start(5, null);
    time += 1_000;
    expect(sessions.end(cookie)).toBe(5);
    expect(sessions.keyOf(cookie)).toBeNull();
    expect(sessions.end(cookie)).toBeNull();
    expect(db.prepare('SELECT ended_at FROM login_sessions WHERE id_hash = ?').pluck().get(sha256Hex(cookie))).toBe(
      time,
    );
    // Another login of the same key goes on.
    expect(sessions.keyOf(other)).toBe(5);
  });

  it("ends every login of a key (it was revoked), and only that key's", () => {
    const a1 = sessions.start(1, null);
    const a2 = sessions.start(1, null);
    const b = sessions.start(2, null);
    sessions.endAllOf(1);
    expect(sessions.keyOf(a1)).toBeNull();
    expect(sessions.keyOf(a2)).toBeNull();
    expect(sessions.keyOf(b)).toBe(2);
    // A login made after the revocation is not ended by it (the HTTP layer refuses a revoked key).
    const later = sessions.start(1, null);
    expect(sessions.keyOf(later)).toBe(1);
  });

  it('expires a login LOGIN_MAX_AGE_MS after it started', () => {
    const cookie = sessions.start(9, null);
    time += LOGIN_MAX_AGE_MS - 1;
    expect(sessions.keyOf(cookie)).toBe(9);
    time += 1;
    expect(sessions.keyOf(cookie)).toBeNull();
  });

  // BUG: `end` is documented as returning null "when it was not live", but it ends an expired
  // login too (its UPDATE does not check expires_at) and returns its key: a logout with a cookie
  // that expired days ago is then audited as that key's logout.
  it('ends nothing for an expired login', () => {
    const cookie = sessions.start(9, null);
    time += LOGIN_MAX_AGE_MS + 1;
    expect(sessions.end(cookie)).toBeNull();
  });
});
