import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../db/open-database';
import { createTempDataDir } from '../db/test-database';
import { type AuditInput, type AuditTrail, createAuditTrail, entryHash, GENESIS_HASH } from './audit-trail';
import type { PrincipalRef } from './principal';

/**
 * The audit trail (`audit_log`) on a real, migrated SQLite file: entries chained by hash from
 * GENESIS_HASH; listed newest first with filters and cursor paging; `verify` holds for an intact
 * trail and finds an entry edited, one removed in the middle and the newest removed — done as an
 * attacker holding the file would, dropping the triggers that otherwise refuse UPDATE and DELETE;
 * and two connections appending in turn make one chain.
 */

const alice: PrincipalRef = { id: 'key_alice', name: 'alice', role: 'reviewer' };
const bob: PrincipalRef = { id: 'key_bob', name: 'bob', role: 'admin' };

let temp: ReturnType<typeof createTempDataDir>;
let file: string;
let db: SqliteDatabase;
let time: number;
let audit: AuditTrail;
const opened: SqliteDatabase[] = [];

const open = () => {
  const connection = openDatabase(file);
  opened.push(connection);
  return connection;
};

/** Appends `count` entries by alice, each a second after the one before. */
function appendMany(count: number, input: Partial<AuditInput> = {}) {
  return Array.from({ length: count }, (_, i) => {
    time += 1_000;
    return audit.append({ principal: alice, kind: 'trace.deleted', target: `trace-${i}`, ...input });
  });
}

beforeEach(() => {
  temp = createTempDataDir('toolscope-audit-');
  file = path.join(temp.dir, 'toolscope.db');
  db = open();
  time = Date.UTC(2026, 0, 1);
  audit = createAuditTrail(db, () => time);
});

afterEach(() => {
  for (const connection of opened.splice(0)) connection.close();
  temp.remove();
});

describe('append', () => {
  it('records who, what, on what, from where, and when', () => {
    const entry = audit.append({
      principal: { ...alice, kind: 'key', ref: 4 } as PrincipalRef,
      kind: 'approval.decided',
      target: 'trace-1',
      detail: { decision: 'approve' },
      address: '10.0.0.7',
    });
    expect(entry).toEqual({
      seq: 1,
      at: '2026-01-01T00:00:00.000Z',
      // Only id, name and role are kept of a principal.
      principal: alice,
      kind: 'approval.decided',
      target: 'trace-1',
      detail: { decision: 'approve' },
      address: '10.0.0.7',
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(audit.append({ principal: bob, kind: 'logout' })).toMatchObject({
      seq: 2,
      target: null,
      detail: {},
      address: null,
    });
  });

  it('chains each entry to the one before, starting from GENESIS_HASH', () => {
    appendMany(3);
    const rows = db.prepare('SELECT * FROM audit_log ORDER BY seq').all() as {
      seq: number;
      at: number;
      principal: string;
      kind: string;
      target: string | null;
      detail: string;
      address: string | null;
      prev_hash: string;
      hash: string;
    }[];
    expect(rows.map((row) => row.seq)).toEqual([1, 2, 3]);
    expect(rows[0]?.prev_hash).toBe(GENESIS_HASH);
    expect(rows[1]?.prev_hash).toBe(rows[0]?.hash);
    expect(rows[2]?.prev_hash).toBe(rows[1]?.hash);
    for (const { prev_hash: prevHash, hash, kind, ...row } of rows) {
      expect(entryHash({ ...row, kind: kind as 'trace.deleted', prevHash })).toBe(hash);
    }
  });

  it('hashes every field: changing any one changes the hash', () => {
    const base = {
      seq: 1,
      at: 1,
      principal: JSON.stringify(alice),
      kind: 'login' as const,
      target: null,
      detail: '{}',
      address: null,
      prevHash: GENESIS_HASH,
    };
    const hashes = new Set([
      entryHash(base),
      entryHash({ ...base, seq: 2 }),
      entryHash({ ...base, at: 2 }),
      entryHash({ ...base, principal: JSON.stringify(bob) }),
      entryHash({ ...base, kind: 'logout' }),
      entryHash({ ...base, target: 'x' }),
      entryHash({ ...base, detail: '{"a":1}' }),
      entryHash({ ...base, address: '::1' }),
      entryHash({ ...base, prevHash: '1'.repeat(64) }),
    ]);
    expect(hashes.size).toBe(9);
  });
});

describe('the triggers', () => {
  it('refuse to change or remove an entry', () => {
    const [entry] = appendMany(1);
    expect(() => db.prepare("UPDATE audit_log SET detail = '{}' WHERE seq = ?").run(entry?.seq)).toThrow(/append-only/);
    expect(() => db.prepare('DELETE FROM audit_log WHERE seq = ?').run(entry?.seq)).toThrow(/append-only/);
    expect(() => db.exec('DELETE FROM audit_log')).toThrow(/append-only/);
    expect(audit.verify()).toEqual({ ok: true, entries: 1, first_bad_seq: null });
  });
});

describe('list', () => {
  it('lists newest first, 100 by default', () => {
    appendMany(105);
    const { entries, next_cursor } = audit.list();
    expect(entries).toHaveLength(100);
    expect(entries[0]?.seq).toBe(105);
    expect(entries[99]?.seq).toBe(6);
    expect(next_cursor).toBe('6');
  });

  it('pages with the cursor until every entry was seen once', () => {
    appendMany(7);
    const seen: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = audit.list({ limit: 3, cursor });
      seen.push(...page.entries.map((entry) => entry.seq));
      cursor = page.next_cursor ?? undefined;
      pages++;
    } while (cursor);
    expect(seen).toEqual([7, 6, 5, 4, 3, 2, 1]);
    expect(pages).toBe(3);
    // An exact last page says there is no more.
    expect(audit.list({ limit: 7 }).next_cursor).toBeNull();
  });

  it('keeps the limit within 1..500', () => {
    appendMany(3);
    expect(audit.list({ limit: 0 }).entries).toHaveLength(1);
    expect(audit.list({ limit: -5 }).entries).toHaveLength(1);
    expect(audit.list({ limit: 10_000 }).entries).toHaveLength(3);
  });

  it('reads a cursor that is not a number as the start', () => {
    appendMany(2);
    expect(audit.list({ cursor: 'nope' }).entries.map((entry) => entry.seq)).toEqual([2, 1]);
  });

  it('filters by kind, by target, and by principal id or name', () => {
    audit.append({ principal: alice, kind: 'login', target: 'key_alice' });
    audit.append({ principal: bob, kind: 'key.created', target: 'key_carol' });
    audit.append({ principal: alice, kind: 'approval.decided', target: 'trace-9' });
    audit.append({ principal: bob, kind: 'key.revoked', target: 'key_carol' });
    const seqs = (query: Parameters<AuditTrail['list']>[0]) => audit.list(query).entries.map((entry) => entry.seq);

    expect(seqs({ kind: 'login' })).toEqual([1]);
    expect(seqs({ target: 'key_carol' })).toEqual([4, 2]);
    expect(seqs({ principal: 'alice' })).toEqual([3, 1]);
    expect(seqs({ principal: 'key_bob' })).toEqual([4, 2]);
    expect(seqs({ principal: 'bob', kind: 'key.revoked' })).toEqual([4]);
    expect(seqs({ principal: 'alice', target: 'key_carol' })).toEqual([]);
    expect(seqs({ kind: 'no.such.kind' })).toEqual([]);
  });

  it('pages through a filtered list', () => {
    for (let i = 0; i < 6; i++) audit.append({ principal: i % 2 ? bob : alice, kind: 'login' });
    const first = audit.list({ principal: 'bob', limit: 2 });
    expect(first.entries.map((entry) => entry.seq)).toEqual([6, 4]);
    const second = audit.list({ principal: 'bob', limit: 2, cursor: first.next_cursor ?? undefined });
    expect(second.entries.map((entry) => entry.seq)).toEqual([2]);
    expect(second.next_cursor).toBeNull();
  });
});

describe('verify', () => {
  it('holds for an empty trail and for an intact one', () => {
    expect(audit.verify()).toEqual({ ok: true, entries: 0, first_bad_seq: null });
    appendMany(5);
    expect(audit.verify()).toEqual({ ok: true, entries: 5, first_bad_seq: null });
  });

  it("finds an entry whose content was edited behind the triggers' back", () => {
    appendMany(5);
    db.exec('DROP TRIGGER audit_log_no_update');
    db.prepare(`UPDATE audit_log SET detail = '{"decision":"deny"}' WHERE seq = 3`).run();
    expect(audit.verify()).toEqual({ ok: false, entries: 3, first_bad_seq: 3 });
  });

  it('finds an edited principal, time or address too', () => {
    appendMany(3);
    db.exec('DROP TRIGGER audit_log_no_update');
    db.prepare('UPDATE audit_log SET principal = ? WHERE seq = 2').run(JSON.stringify(bob));
    expect(audit.verify().first_bad_seq).toBe(2);
    db.prepare('UPDATE audit_log SET principal = ? WHERE seq = 2').run(JSON.stringify(alice));
    expect(audit.verify().ok).toBe(true);
    db.prepare('UPDATE audit_log SET at = at + 1 WHERE seq = 1').run();
    expect(audit.verify().first_bad_seq).toBe(1);
  });

  it('finds an entry removed from the middle', () => {
    appendMany(5);
    db.exec('DROP TRIGGER audit_log_no_delete');
    db.prepare('DELETE FROM audit_log WHERE seq = 3').run();
    // The entry after the gap no longer points at the one before it.
    expect(audit.verify()).toEqual({ ok: false, entries: 3, first_bad_seq: 4 });
  });

  it('finds the newest entries removed', () => {
    appendMany(5);
    db.exec('DROP TRIGGER audit_log_no_delete');
    db.prepare('DELETE FROM audit_log WHERE seq >= 4').run();
    expect(audit.verify()).toEqual({ ok: false, entries: 3, first_bad_seq: 4 });
  });

  it('finds every entry removed', () => {
    appendMany(2);
    db.exec('DROP TRIGGER audit_log_no_delete');
    db.prepare('DELETE FROM audit_log').run();
    expect(audit.verify()).toEqual({ ok: false, entries: 0, first_bad_seq: 1 });
  });

  it('keeps finding the newest removed after more entries are appended', () => {
    appendMany(3);
    db.exec('DROP TRIGGER audit_log_no_delete');
    db.prepare('DELETE FROM audit_log WHERE seq = 3').run();
    appendMany(2);
    // The sequence never hands out 3 again: the gap stays visible.
    expect(db.prepare('SELECT seq FROM audit_log ORDER BY seq').pluck().all()).toEqual([1, 2, 4, 5]);
    expect(audit.verify()).toMatchObject({ ok: false, first_bad_seq: 4 });
  });
});

describe('two connections to the same file', () => {
  it('append in turn to one chain, which both verify', () => {
    const other = createAuditTrail(open(), () => time);
    const seqs: number[] = [];
    for (let i = 0; i < 6; i++) {
      time += 1;
      const trail = i % 2 === 0 ? audit : other;
      seqs.push(trail.append({ principal: i % 2 === 0 ? alice : bob, kind: 'key.created', target: `k${i}` }).seq);
    }
    expect(seqs).toEqual([1, 2, 3, 4, 5, 6]);
    expect(audit.verify()).toEqual({ ok: true, entries: 6, first_bad_seq: null });
    expect(other.verify()).toEqual({ ok: true, entries: 6, first_bad_seq: null });
    expect(other.list({ limit: 6 }).entries.map((entry) => entry.principal.name)).toEqual([
      'bob',
      'alice',
      'bob',
      'alice',
      'bob',
      'alice',
    ]);
  });
});
