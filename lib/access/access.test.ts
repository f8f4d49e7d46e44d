import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../db/open-database';
import { createTempDataDir } from '../db/test-database';
import { type Access, type AccessOptions, createAccess } from './access';
import type { Credentials } from './authenticator';
import { createKeyStore, newToken } from './key-store';
import { FREE_FAILURES } from './login-throttle';

/**
 * Who a request is (`createAccess`) on a real, migrated SQLite file: a bearer token
 * (TOOLSCOPE_TOKEN's admin, a named key; wrong, unknown or revoked ones invalid, local mode
 * included), the login cookie, and local mode (loopback, no token, no key ever made — ended by the
 * first key, also one made through another connection; never off loopback); logins (agent keys
 * refused, wrong keys throttled) and logouts; and the cached principals.
 */

const ADMIN_TOKEN = 'admin-token-0123456789abcdef';
const none: Credentials = { bearer: null, session: null };
const bearer = (token: string): Credentials => ({ bearer: token, session: null });
const session = (cookie: string): Credentials => ({ bearer: null, session: cookie });

let temp: ReturnType<typeof createTempDataDir>;
let file: string;
let db: SqliteDatabase;
let time: number;
const opened: SqliteDatabase[] = [];

function accessWith(config: Partial<AccessOptions['config']> = {}): Access {
  return createAccess({ db, config: { token: null, host: '127.0.0.1', ...config }, now: () => time });
}

beforeEach(() => {
  temp = createTempDataDir('toolscope-access-');
  file = path.join(temp.dir, 'toolscope.db');
  db = openDatabase(file);
  opened.push(db);
  time = 1_700_000_000_000;
});

afterEach(() => {
  for (const connection of opened.splice(0)) connection.close();
  temp.remove();
});

describe('local mode', () => {
  it('is the one local person with every role: loopback, no token, no key', () => {
    const access = accessWith();
    expect(access.localMode()).toBe(true);
    const auth = access.authenticate(none);
    expect(auth).toEqual({
      ok: true,
      principal: { id: 'local', name: 'local', role: 'admin', kind: 'local', ref: expect.any(Number) },
    });
  });

  it.each(['127.0.0.1', '127.0.0.53', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1'])('holds on %s', (host) => {
    expect(accessWith({ host }).localMode()).toBe(true);
  });

  it.each(['0.0.0.0', '::', '192.168.1.10', 'toolscope.example.com'])('never holds off loopback (%s)', (host) => {
    const access = accessWith({ host });
    expect(access.localMode()).toBe(false);
    expect(access.authenticate(none)).toEqual({ ok: false, reason: 'missing' });
  });

  it('does not hold with TOOLSCOPE_TOKEN set', () => {
    const access = accessWith({ token: ADMIN_TOKEN });
    expect(access.localMode()).toBe(false);
    expect(access.authenticate(none)).toEqual({ ok: false, reason: 'missing' });
  });

  it('ends with the first key, and does not come back when it is revoked', () => {
    const access = accessWith();
    expect(access.authenticate(none).ok).toBe(true);
    const { key } = access.keys.create({ name: 'alice', role: 'admin' });
    expect(access.localMode()).toBe(false);
    expect(access.authenticate(none)).toEqual({ ok: false, reason: 'missing' });
    access.keys.revoke(key.id);
    expect(access.localMode()).toBe(false);
    expect(access.authenticate(none)).toEqual({ ok: false, reason: 'missing' });
  });

  it('ends at once with a key made through another connection (npm run keys)', () => {
    const access = accessWith();
    expect(access.authenticate(none).ok).toBe(true);
    const other = openDatabase(file);
    opened.push(other);
    const { token } = createKeyStore(other).create({ name: 'cli', role: 'admin' });
    expect(access.authenticate(none)).toEqual({ ok: false, reason: 'missing' });
    expect(access.authenticate(bearer(token))).toMatchObject({ ok: true, principal: { name: 'cli' } });
  });

  it('refuses a wrong bearer token rather than taking it for the local person', () => {
    const access = accessWith();
    expect(access.authenticate(bearer('nope'))).toEqual({ ok: false, reason: 'invalid' });
    expect(access.authenticate(bearer(newToken()))).toEqual({ ok: false, reason: 'invalid' });
  });

  it('takes an unknown cookie as the local person (the cookie of a login that is gone)', () => {
    expect(accessWith().authenticate(session('stale'))).toMatchObject({ ok: true, principal: { id: 'local' } });
  });
});

describe('bearer tokens', () => {
  it("is TOOLSCOPE_TOKEN's bootstrap admin `admin`", () => {
    const access = accessWith({ token: ADMIN_TOKEN });
    expect(access.authenticate(bearer(ADMIN_TOKEN))).toEqual({
      ok: true,
      principal: { id: 'token', name: 'admin', role: 'admin', kind: 'token', ref: expect.any(Number) },
    });
    expect(access.authenticate(bearer(`${ADMIN_TOKEN}x`))).toEqual({ ok: false, reason: 'invalid' });
    expect(access.authenticate(bearer(ADMIN_TOKEN.slice(0, -1)))).toEqual({ ok: false, reason: 'invalid' });
  });

  it('is a named key, noted as used', () => {
    const access = accessWith({ token: ADMIN_TOKEN });
    const { key, token } = access.keys.create({ name: 'bot', role: 'agent' });
    time += 10_000;
    expect(access.authenticate(bearer(token))).toEqual({
      ok: true,
      principal: { id: key.id, name: 'bot', role: 'agent', kind: 'key', ref: key.ref },
    });
    expect(db.prepare('SELECT last_used_at FROM access_keys WHERE ref = ?').pluck().get(key.ref)).toBe(time);
  });

  it('refuses a revoked key at once, and an unknown or overlong one', () => {
    const access = accessWith();
    const { key, token } = access.keys.create({ name: 'bot', role: 'agent' });
    expect(access.authenticate(bearer(token)).ok).toBe(true);
    access.keys.revoke(key.id);
    expect(access.authenticate(bearer(token))).toEqual({ ok: false, reason: 'invalid' });
    expect(access.authenticate(bearer(newToken()))).toEqual({ ok: false, reason: 'invalid' });
    expect(access.authenticate(bearer(`${token}${'a'.repeat(128)}`))).toEqual({ ok: false, reason: 'invalid' });
  });

  it('refuses a key revoked through another connection at the next request', () => {
    const access = accessWith();
    const { key, token } = access.keys.create({ name: 'bot', role: 'agent' });
    expect(access.authenticate(bearer(token)).ok).toBe(true);
    const other = openDatabase(file);
    opened.push(other);
    createKeyStore(other).revoke(key.id);
    expect(access.authenticate(bearer(token))).toEqual({ ok: false, reason: 'invalid' });
  });

  it('is not TOOLSCOPE_TOKEN when none is set, whatever is sent', () => {
    const access = accessWith();
    access.keys.create({ name: 'alice', role: 'admin' });
    expect(access.authenticate(bearer('token'))).toEqual({ ok: false, reason: 'invalid' });
    expect(access.authenticate(bearer(''))).toEqual({ ok: false, reason: 'invalid' });
  });

  it('comes before the cookie', () => {
    const access = accessWith();
    const alice = access.keys.create({ name: 'alice', role: 'reviewer' });
    const bot = access.keys.create({ name: 'bot', role: 'agent' });
    const login = access.login(alice.token, '127.0.0.1');
    if (!login.ok) throw new Error(login.reason);
    expect(access.authenticate({ bearer: bot.token, session: login.cookie })).toMatchObject({
      ok: true,
      principal: { name: 'bot' },
    });
    expect(access.authenticate({ bearer: 'wrong', session: login.cookie })).toEqual({ ok: false, reason: 'invalid' });
  });
});

describe('login and the cookie', () => {
  it('logs a person in with their key; the cookie is then who they are, until they log out', () => {
    const access = accessWith();
    const { key, token } = access.keys.create({ name: 'alice', role: 'reviewer' });
    const login = access.login(`  ${token}\n`, '10.0.0.1');
    expect(login).toEqual({ ok: true, principal: expect.objectContaining({ id: key.id }), cookie: expect.any(String) });
    if (!login.ok) return;
    expect(access.authenticate(session(login.cookie))).toEqual({ ok: true, principal: login.principal });

    expect(access.logout(login.cookie)).toBe(login.principal);
    expect(access.authenticate(session(login.cookie))).toEqual({ ok: false, reason: 'missing' });
    expect(access.logout(login.cookie)).toBeNull();
  });

  it('notes a key as used when a person logs in with it and while they work logged in', () => {
    const access = accessWith();
    const { key, token } = access.keys.create({ name: 'alice', role: 'reviewer' });
    const lastUsed = () => db.prepare('SELECT last_used_at FROM access_keys WHERE ref = ?').pluck().get(key.ref);
    expect(lastUsed()).toBeNull();
    const login = access.login(token, '10.0.0.1');
    if (!login.ok) throw new Error('the login failed');
    expect(lastUsed()).toBe(time);
    time += 120_000;
    expect(access.authenticate(session(login.cookie)).ok).toBe(true);
    expect(lastUsed()).toBe(time);
  });

  it('logs in with TOOLSCOPE_TOKEN as the admin `admin`', () => {
    const access = accessWith({ token: ADMIN_TOKEN, host: '0.0.0.0' });
    const login = access.login(ADMIN_TOKEN, '10.0.0.1');
    expect(login).toMatchObject({ ok: true, principal: { id: 'token', name: 'admin', role: 'admin' } });
    if (login.ok) expect(access.authenticate(session(login.cookie))).toMatchObject({ principal: { id: 'token' } });
  });

  it("refuses an agent's key: agents do not log in", () => {
    const access = accessWith();
    const { token } = access.keys.create({ name: 'bot', role: 'agent' });
    expect(access.login(token, '10.0.0.1')).toEqual({ ok: false, reason: 'agent-key' });
    expect(db.prepare('SELECT count(*) FROM login_sessions').pluck().get()).toBe(0);
  });

  it('refuses a wrong, unknown or revoked key', () => {
    const access = accessWith();
    const { key, token } = access.keys.create({ name: 'alice', role: 'admin' });
    expect(access.login('nope', '10.0.0.1')).toEqual({ ok: false, reason: 'wrong-key' });
    expect(access.login(newToken(), '10.0.0.1')).toEqual({ ok: false, reason: 'wrong-key' });
    access.keys.revoke(key.id);
    expect(access.login(token, '10.0.0.1')).toEqual({ ok: false, reason: 'wrong-key' });
  });

  it("ends a login's use when its key is revoked", () => {
    const access = accessWith();
    const { key, token } = access.keys.create({ name: 'alice', role: 'admin' });
    const login = access.login(token, '10.0.0.1');
    if (!login.ok) throw new Error(login.reason);
    access.keys.revoke(key.id);
    expect(access.authenticate(session(login.cookie))).toEqual({ ok: false, reason: 'missing' });
  });

  it('does not take an expired login', () => {
    const access = accessWith();
    const { token } = access.keys.create({ name: 'alice', role: 'admin' });
    const login = access.login(token, '10.0.0.1');
    if (!login.ok) throw new Error(login.reason);
    time += 31 * 24 * 3_600_000;
    expect(access.authenticate(session(login.cookie))).toEqual({ ok: false, reason: 'missing' });
  });

  it('throttles wrong keys per address: the right key too must wait, then goes through', () => {
    const access = accessWith();
    const { token } = access.keys.create({ name: 'alice', role: 'admin' });
    for (let i = 0; i < FREE_FAILURES; i++) {
      expect(access.login('wrong', '10.0.0.1')).toEqual({ ok: false, reason: 'wrong-key' });
    }
    expect(access.login(token, '10.0.0.1')).toEqual({ ok: false, reason: 'throttled', retryAfterS: 1 });
    // Another address is not held up.
    expect(access.login(token, '10.0.0.2').ok).toBe(true);

    time += 1_000;
    expect(access.login('wrong', '10.0.0.1')).toEqual({ ok: false, reason: 'wrong-key' });
    expect(access.login(token, '10.0.0.1')).toEqual({ ok: false, reason: 'throttled', retryAfterS: 2 });
    time += 500;
    expect(access.login(token, '10.0.0.1')).toEqual({ ok: false, reason: 'throttled', retryAfterS: 2 });
    time += 1_500;
    expect(access.login(token, '10.0.0.1').ok).toBe(true);
    // The good login started the address afresh.
    expect(access.login('wrong', '10.0.0.1')).toEqual({ ok: false, reason: 'wrong-key' });
    expect(access.login(token, '10.0.0.1').ok).toBe(true);
  });
});

describe('principalOf', () => {
  it('gives the same frozen principal for a stored row each time', () => {
    const access = accessWith();
    const { token } = access.keys.create({ name: 'bot', role: 'agent' });
    const first = access.authenticate(bearer(token));
    const second = access.authenticate(bearer(token));
    if (!first.ok || !second.ok) throw new Error('the key was just made');
    expect(second.principal).toBe(first.principal);
    expect(Object.isFrozen(first.principal)).toBe(true);
    const record = access.keys.byRef(first.principal.ref);
    if (!record) throw new Error('the key was just made');
    expect(access.principalOf(record)).toBe(first.principal);
  });

  it("makes TOOLSCOPE_TOKEN's row at start, and the local person's only when asked for", () => {
    accessWith({ token: ADMIN_TOKEN });
    expect(db.prepare('SELECT id FROM access_keys').pluck().all()).toEqual(['token']);
    accessWith().authenticate(none);
    expect(db.prepare('SELECT id FROM access_keys ORDER BY ref').pluck().all()).toEqual(['token', 'local']);
  });
});
