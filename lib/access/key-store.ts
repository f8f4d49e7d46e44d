import { createHash, randomBytes } from 'node:crypto';
import type { SqliteDatabase } from '../db/open-database';
import type { Role } from './roles';

/** A key's token starts with this, so that a leaked one is recognisable (and scanners can find it). */
export const TOKEN_PREFIX = 'tsk_';

/** The kinds of principal a stored row stands for. */
export type PrincipalKind = 'key' | 'token' | 'local';

/** A key's own permission rules, in the config file's shape: `tool` or `tool(specifier)` strings. */
export interface KeyPermissions {
  allow: string[];
  ask: string[];
  deny: string[];
}

/** A principal as stored: a named key, or TOOLSCOPE_TOKEN's admin, or local mode's person. */
export interface KeyRecord {
  ref: number;
  id: string;
  kind: PrincipalKind;
  name: string;
  role: Role;
  /** Hex SHA-256 of the token; null for `token` and `local`. */
  tokenHash: string | null;
  permissions: KeyPermissions | null;
  tools: string[] | null;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

/** Hex SHA-256 of a secret: what is stored of a key's token and of a login's cookie. */
export function sha256Hex(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** A new key's token: 256 random bits, shown once. */
export function newToken(): string {
  return `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

interface KeyRow {
  ref: number;
  id: string;
  kind: PrincipalKind;
  name: string;
  role: Role;
  tokenHash: string | null;
  permissions: string | null;
  tools: string | null;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

const fromRow = (row: KeyRow): KeyRecord => ({
  ...row,
  permissions: row.permissions === null ? null : (JSON.parse(row.permissions) as KeyPermissions),
  tools: row.tools === null ? null : (JSON.parse(row.tools) as string[]),
});

const COLUMNS =
  'ref, id, kind, name, role, token_hash AS tokenHash, permissions, tools, created_at AS createdAt, last_used_at AS lastUsedAt, revoked_at AS revokedAt';

/** How often a key's `last_used_at` is written at most: a write per request would cost the agents' path. */
const TOUCH_EVERY_MS = 60_000;

export interface KeyStore {
  /** The active or revoked key whose token hashes to `hash`. */
  byTokenHash(hash: string): KeyRecord | undefined;
  byRef(ref: number): KeyRecord | undefined;
  byId(id: string): KeyRecord | undefined;
  /** Whether any named key was ever made (revoked ones count): local mode ends with the first. */
  anyKeys(): boolean;
  /** Named keys, oldest first. */
  list(): KeyRecord[];
  /** Makes a named key; returns it and its token (which is stored only hashed). */
  create(input: { name: string; role: Role; permissions?: KeyPermissions | null; tools?: string[] | null }): {
    key: KeyRecord;
    token: string;
  };
  /** Revokes a named key at once; null when there is none with that id. Revoking twice keeps the first time. */
  revoke(id: string): KeyRecord | null;
  /** The row of TOOLSCOPE_TOKEN's admin or of local mode's person, made the first time it is asked for. */
  principalRow(kind: 'token' | 'local'): KeyRecord;
  /** Notes that a key was used now (written at most once a minute per key). */
  touch(record: KeyRecord, now: number): void;
}

/**
 * The keys in the data folder's database (`access_keys`), kept in memory and read again whenever
 * another connection changed the database (`PRAGMA data_version`): a key made or revoked by
 * `npm run keys` while the server runs counts from the next request. A check costs one pragma.
 */
export function createKeyStore(db: SqliteDatabase, now: () => number = Date.now): KeyStore {
  const version = db.prepare('PRAGMA data_version').pluck();
  const selectAll = db.prepare(`SELECT ${COLUMNS} FROM access_keys ORDER BY ref`);
  const insert = db.prepare(
    'INSERT INTO access_keys (id, kind, name, role, token_hash, permissions, tools, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const revokeRow = db.prepare('UPDATE access_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL');
  const touchRow = db.prepare('UPDATE access_keys SET last_used_at = ? WHERE ref = ?');

  let seen = -1;
  let byHash = new Map<string, KeyRecord>();
  let byRef = new Map<number, KeyRecord>();
  let byId = new Map<string, KeyRecord>();
  let keys = 0;
  const load = () => {
    byHash = new Map();
    byRef = new Map();
    byId = new Map();
    keys = 0;
    for (const row of selectAll.all() as KeyRow[]) {
      const record = fromRow(row);
      byRef.set(record.ref, record);
      byId.set(record.id, record);
      if (record.tokenHash) byHash.set(record.tokenHash, record);
      if (record.kind === 'key') keys++;
    }
  };
  const fresh = () => {
    const current = version.get() as number;
    if (current !== seen) {
      seen = current;
      load();
    }
  };

  return {
    byTokenHash(hash) {
      fresh();
      return byHash.get(hash);
    },
    byRef(ref) {
      fresh();
      return byRef.get(ref);
    },
    byId(id) {
      fresh();
      return byId.get(id);
    },
    anyKeys() {
      fresh();
      return keys > 0;
    },
    list() {
      fresh();
      return [...byRef.values()].filter((record) => record.kind === 'key');
    },
    create({ name, role, permissions = null, tools = null }) {
      const token = newToken();
      const id = `key_${randomBytes(9).toString('base64url')}`;
      insert.run(
        id,
        'key',
        name,
        role,
        sha256Hex(token),
        permissions ? JSON.stringify(permissions) : null,
        tools ? JSON.stringify(tools) : null,
        now(),
      );
      load();
      return { key: byId.get(id) as KeyRecord, token };
    },
    revoke(id) {
      fresh();
      const record = byId.get(id);
      if (record?.kind !== 'key') return null;
      revokeRow.run(now(), id);
      load();
      return byId.get(id) ?? null;
    },
    principalRow(kind) {
      fresh();
      const existing = byId.get(kind);
      if (existing) return existing;
      insert.run(kind, kind, kind === 'token' ? 'admin' : 'local', 'admin', null, null, null, now());
      load();
      return byId.get(kind) as KeyRecord;
    },
    touch(record, at) {
      if (record.lastUsedAt !== null && at - record.lastUsedAt < TOUCH_EVERY_MS) return;
      record.lastUsedAt = at;
      try {
        touchRow.run(at, record.ref);
      } catch (error) {
        // A locked or read-only database must not refuse the request: the time is a hint.
        console.error('[toolscope] could not note a key as used:', error);
      }
    },
  };
}
