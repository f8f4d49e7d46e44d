import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../db/open-database';
import { createTempDataDir } from '../db/test-database';
import { createKeyStore, type KeyStore, newToken, sha256Hex, TOKEN_PREFIX } from './key-store';

/**
 * The key store (`access_keys`) on a real, migrated SQLite file: a key's token is shown once and
 * kept only as its SHA-256; list, revoke, the lookups, `anyKeys`, the principal rows and `touch`;
 * and a change made through another connection to the same file (`npm run keys` while the server
 * runs) is seen at the next read.
 */

let temp: ReturnType<typeof createTempDataDir>;
let file: string;
let db: SqliteDatabase;
let time: number;
let keys: KeyStore;
const opened: SqliteDatabase[] = [];

/** Another connection to the same file, as `npm run keys` opens while the server runs. */
function openOther(): SqliteDatabase {
  const other = openDatabase(file);
  opened.push(other);
  return other;
}

beforeEach(() => {
  temp = createTempDataDir('toolscope-keys-');
  file = path.join(temp.dir, 'toolscope.db');
  db = openDatabase(file);
  opened.push(db);
  time = 1_700_000_000_000;
  keys = createKeyStore(db, () => time);
});

afterEach(() => {
  for (const connection of opened.splice(0)) connection.close();
  temp.remove();
});

describe('createKeyStore', () => {
  it('makes a key whose token is shown once and stored only as its SHA-256 hex', () => {
    const { key, token } = keys.create({ name: 'alice', role: 'reviewer' });
    expect(token.startsWith(TOKEN_PREFIX)).toBe(true);
    expect(token.length).toBeGreaterThanOrEqual(TOKEN_PREFIX.length + 43); // 256 random bits
    expect(key).toEqual({
      ref: expect.any(Number),
      id: expect.stringMatching(/^key_/),
      kind: 'key',
      name: 'alice',
      role: 'reviewer',
      tokenHash: sha256Hex(token),
      permissions: null,
      tools: null,
      createdAt: time,
      lastUsedAt: null,
      revokedAt: null,
    });
    expect(key.tokenHash).toMatch(/^[0-9a-f]{64}$/);

    // Nowhere in the file's rows is the token itself.
    const rows = db.prepare('SELECT * FROM access_keys').all();
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(JSON.stringify(rows)).not.toContain(token.slice(TOKEN_PREFIX.length));
    expect(db.prepare('SELECT token_hash FROM access_keys WHERE id = ?').pluck().get(key.id)).toBe(sha256Hex(token));
  });

  it('makes a different token and id each time', () => {
    const a = keys.create({ name: 'a', role: 'agent' });
    const b = keys.create({ name: 'b', role: 'agent' });
    expect(a.token).not.toBe(b.token);
    expect(a.key.id).not.toBe(b.key.id);
    expect(newToken()).not.toBe(newToken());
  });

  it('keeps a key scope: its permissions and tools come back as they were given', () => {
    const permissions = { allow: ['read_file(notes/**)'], ask: [], deny: ['read_file(secrets/**)'] };
    const { key } = keys.create({ name: 'bot', role: 'agent', permissions, tools: ['read_file', 'fs__*'] });
    expect(key.permissions).toEqual(permissions);
    expect(key.tools).toEqual(['read_file', 'fs__*']);
    expect(keys.byId(key.id)?.permissions).toEqual(permissions);
  });

  it('finds a key by its token hash, its ref and its id', () => {
    const { key, token } = keys.create({ name: 'alice', role: 'admin' });
    expect(keys.byTokenHash(sha256Hex(token))).toEqual(key);
    expect(keys.byRef(key.ref)).toEqual(key);
    expect(keys.byId(key.id)).toEqual(key);
    expect(keys.byTokenHash(sha256Hex(`${token}x`))).toBeUndefined();
    expect(keys.byTokenHash(token)).toBeUndefined(); // the token itself is no hash
    expect(keys.byRef(key.ref + 100)).toBeUndefined();
    expect(keys.byId('key_nope')).toBeUndefined();
  });

  it('lists the named keys oldest first, without the principal rows', () => {
    const first = keys.create({ name: 'first', role: 'viewer' }).key;
    keys.principalRow('token');
    keys.principalRow('local');
    const second = keys.create({ name: 'second', role: 'agent' }).key;
    expect(keys.list().map((key) => key.id)).toEqual([first.id, second.id]);
  });

  it('revokes a key at once; revoking again keeps the first time', () => {
    const { key, token } = keys.create({ name: 'alice', role: 'reviewer' });
    time += 5_000;
    const revoked = keys.revoke(key.id);
    expect(revoked?.revokedAt).toBe(time);
    // A revoked key is still found (its calls and entries name it), marked revoked.
    expect(keys.byTokenHash(sha256Hex(token))?.revokedAt).toBe(time);
    expect(keys.list()[0]?.revokedAt).toBe(time);

    const firstTime = time;
    time += 60_000;
    expect(keys.revoke(key.id)?.revokedAt).toBe(firstTime);
    expect(db.prepare('SELECT revoked_at FROM access_keys WHERE id = ?').pluck().get(key.id)).toBe(firstTime);
  });

  it('revokes nothing that is not a named key', () => {
    expect(keys.revoke('key_unknown')).toBeNull();
    keys.principalRow('token');
    keys.principalRow('local');
    expect(keys.revoke('token')).toBeNull();
    expect(keys.revoke('local')).toBeNull();
    expect(keys.byId('token')?.revokedAt).toBeNull();
  });

  it('says whether a named key was ever made: revoked keys count, principal rows do not', () => {
    expect(keys.anyKeys()).toBe(false);
    keys.principalRow('token');
    keys.principalRow('local');
    expect(keys.anyKeys()).toBe(false);
    const { key } = keys.create({ name: 'alice', role: 'admin' });
    expect(keys.anyKeys()).toBe(true);
    keys.revoke(key.id);
    expect(keys.anyKeys()).toBe(true);
  });

  it("makes TOOLSCOPE_TOKEN's admin and local mode's person once each, on first asking", () => {
    const token = keys.principalRow('token');
    expect(token).toMatchObject({ id: 'token', kind: 'token', name: 'admin', role: 'admin', tokenHash: null });
    const local = keys.principalRow('local');
    expect(local).toMatchObject({ id: 'local', kind: 'local', name: 'local', role: 'admin', tokenHash: null });
    expect(local.ref).not.toBe(token.ref);

    time += 1_000;
    expect(keys.principalRow('token')).toEqual(token);
    expect(createKeyStore(db, () => time).principalRow('local')).toEqual(local);
    expect(db.prepare("SELECT count(*) FROM access_keys WHERE kind IN ('token', 'local')").pluck().get()).toBe(2);
  });

  it('notes a key as used at most once a minute', () => {
    const { key } = keys.create({ name: 'bot', role: 'agent' });
    const stored = () => db.prepare('SELECT last_used_at FROM access_keys WHERE ref = ?').pluck().get(key.ref);
    const record = keys.byRef(key.ref);
    if (!record) throw new Error('the key was just made');

    keys.touch(record, time);
    expect(stored()).toBe(time);
    expect(keys.byRef(key.ref)?.lastUsedAt).toBe(time);

    keys.touch(record, time + 59_999);
    expect(stored()).toBe(time);

    keys.touch(record, time + 60_000);
    expect(stored()).toBe(time + 60_000);
  });

  it('does not fail a request when the time of use cannot be written', () => {
    const { key } = keys.create({ name: 'bot', role: 'agent' });
    const record = keys.byRef(key.ref);
    if (!record) throw new Error('the key was just made');
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args);
    try {
      // Another connection holds the write lock; this one must not wait for it (busy_timeout 0).
      const other = openOther();
      db.pragma('busy_timeout = 0');
      other.exec('BEGIN IMMEDIATE');
      expect(() => keys.touch(record, time)).not.toThrow();
      other.exec('ROLLBACK');
    } finally {
      console.error = original;
    }
    expect(errors).toHaveLength(1);
  });

  describe('with another connection to the same file (npm run keys while the server runs)', () => {
    it('sees a key made there at the next read', () => {
      expect(keys.anyKeys()).toBe(false);
      expect(keys.list()).toEqual([]);

      const made = createKeyStore(openOther(), () => time).create({ name: 'cli', role: 'admin' });

      expect(keys.anyKeys()).toBe(true);
      expect(keys.byTokenHash(sha256Hex(made.token))?.id).toBe(made.key.id);
      expect(keys.list().map((key) => key.name)).toEqual(['cli']);
    });

    it('sees a key revoked there at the next read', () => {
      const { key, token } = keys.create({ name: 'alice', role: 'reviewer' });
      expect(keys.byTokenHash(sha256Hex(token))?.revokedAt).toBeNull();

      time += 1_000;
      expect(createKeyStore(openOther(), () => time).revoke(key.id)?.revokedAt).toBe(time);

      expect(keys.byTokenHash(sha256Hex(token))?.revokedAt).toBe(time);
      expect(keys.byId(key.id)?.revokedAt).toBe(time);
      expect(keys.byRef(key.ref)?.revokedAt).toBe(time);
    });

    it('sees a change made with plain SQL, and its own changes without another read', () => {
      keys.create({ name: 'mine', role: 'viewer' });
      const other = openOther();
      other.prepare("UPDATE access_keys SET revoked_at = 42 WHERE name = 'mine'").run();
      expect(keys.list()[0]?.revokedAt).toBe(42);
    });
  });
});
