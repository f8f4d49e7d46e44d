import { createHash } from 'node:crypto';
import type { SqliteDatabase } from '../db/open-database';
import type { PrincipalRef } from './principal';

/** What the audit trail records: each decision, change, login and destructive action. */
export const AUDIT_KINDS = [
  'approval.decided',
  'policy.changed',
  'fault_rule.created',
  'fault_rule.updated',
  'fault_rule.deleted',
  'fault_rules.reset',
  'fault_rules.disabled',
  'key.created',
  'key.revoked',
  'login',
  'login.failed',
  'logout',
  'calls.imported',
  'trace.deleted',
  'session.deleted',
  'trace.replayed',
  'session.replayed',
  'trace.cancelled',
  'mcp_server.reconnected',
  'mcp_tool.relabelled',
  'circuit.reset',
  'notify.failed',
] as const;
export type AuditKind = (typeof AUDIT_KINDS)[number];

/** One entry as `GET /api/v1/audit` answers it. */
export interface AuditEntry {
  seq: number;
  /** ISO time. */
  at: string;
  principal: PrincipalRef;
  kind: AuditKind;
  target: string | null;
  detail: Record<string, unknown>;
  address: string | null;
  hash: string;
}

/** What an entry is made of: who, what, on what, and where from. */
export interface AuditInput {
  principal: PrincipalRef;
  kind: AuditKind;
  target?: string | null;
  detail?: Record<string, unknown>;
  address?: string | null;
}

export interface AuditQuery {
  kind?: string;
  /** What the entries were done to: a trace id, a key id, a rule id… */
  target?: string;
  /** A principal's id or name. */
  principal?: string;
  /** From a previous page's `next_cursor`: entries older than it. */
  cursor?: string;
  /** 1..500, default 100. */
  limit?: number;
}

export interface AuditVerification {
  ok: boolean;
  /** Entries checked. */
  entries: number;
  /** The first entry whose content or place in the chain does not hold; null when all do. */
  first_bad_seq: number | null;
}

export interface AuditTrail {
  append(input: AuditInput): AuditEntry;
  /** Newest first, keyset-paginated by `seq`. */
  list(query?: AuditQuery): { entries: AuditEntry[]; next_cursor: string | null };
  verify(): AuditVerification;
}

/** The hash an entry's chain starts from. */
export const GENESIS_HASH = '0'.repeat(64);

interface AuditRow {
  seq: number;
  at: number;
  principal: string;
  kind: AuditKind;
  target: string | null;
  detail: string;
  address: string | null;
  prevHash: string;
  hash: string;
}

/** The SHA-256 that chains an entry: of the previous entry's hash and every stored field, in a fixed order. */
export function entryHash(row: Omit<AuditRow, 'hash'>): string {
  const canonical = JSON.stringify([
    row.prevHash,
    row.seq,
    row.at,
    row.principal,
    row.kind,
    row.target,
    row.detail,
    row.address,
  ]);
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}

const toEntry = (row: AuditRow): AuditEntry => ({
  seq: row.seq,
  at: new Date(row.at).toISOString(),
  principal: JSON.parse(row.principal) as PrincipalRef,
  kind: row.kind,
  target: row.target,
  detail: JSON.parse(row.detail) as Record<string, unknown>,
  address: row.address,
  hash: row.hash,
});

const COLUMNS = 'seq, at, principal, kind, target, detail, address, prev_hash AS prevHash, hash';

/**
 * The audit trail in the database (`audit_log`): append-only (triggers refuse UPDATE and DELETE),
 * each entry chained to the one before by `hash = SHA-256(prev_hash, its fields)`. An entry is
 * appended in one IMMEDIATE transaction that reads the last hash, so the server and
 * `npm run keys` writing at once still make one chain.
 */
export function createAuditTrail(db: SqliteDatabase, now: () => number = Date.now): AuditTrail {
  const last = db.prepare('SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1');
  const nextSeq = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'audit_log'").pluck();
  const insert = db.prepare(
    'INSERT INTO audit_log (seq, at, principal, kind, target, detail, address, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const page = db.prepare(
    `SELECT ${COLUMNS} FROM audit_log WHERE seq < @before AND (@kind IS NULL OR kind = @kind)
      AND (@target IS NULL OR target = @target)
      AND (@principal IS NULL OR json_extract(principal, '$.id') = @principal OR json_extract(principal, '$.name') = @principal)
      ORDER BY seq DESC LIMIT @limit`,
  );
  const all = db.prepare(`SELECT ${COLUMNS} FROM audit_log ORDER BY seq`);
  const appendRow = db.transaction((input: AuditInput): AuditRow => {
    const previous = last.get() as { seq: number; hash: string } | undefined;
    // AUTOINCREMENT never hands out a seq twice: an entry removed behind the triggers leaves a gap.
    const used = Math.max(previous?.seq ?? 0, (nextSeq.get() as number | undefined) ?? 0);
    const row: Omit<AuditRow, 'hash'> = {
      seq: used + 1,
      at: now(),
      principal: JSON.stringify({ id: input.principal.id, name: input.principal.name, role: input.principal.role }),
      kind: input.kind,
      target: input.target ?? null,
      detail: JSON.stringify(input.detail ?? {}),
      address: input.address ?? null,
      prevHash: previous?.hash ?? GENESIS_HASH,
    };
    const hash = entryHash(row);
    insert.run(row.seq, row.at, row.principal, row.kind, row.target, row.detail, row.address, row.prevHash, hash);
    return { ...row, hash };
  });
  return {
    append: (input) => toEntry(appendRow.immediate(input)),
    list(query = {}) {
      const limit = Math.min(Math.max(query.limit ?? 100, 1), 500);
      const before = query.cursor && /^\d+$/.test(query.cursor) ? Number(query.cursor) : Number.MAX_SAFE_INTEGER;
      const rows = page.all({
        before,
        kind: query.kind ?? null,
        target: query.target ?? null,
        principal: query.principal ?? null,
        limit: limit + 1,
      }) as AuditRow[];
      const more = rows.length > limit;
      const entries = rows.slice(0, limit).map(toEntry);
      return { entries, next_cursor: more ? String(entries.at(-1)?.seq) : null };
    },
    verify() {
      let previous = GENESIS_HASH;
      let previousSeq = 0;
      let entries = 0;
      for (const row of all.iterate() as Iterable<AuditRow>) {
        entries++;
        // An entry edited (its hash no longer its content's), or one before it removed or changed
        // (its prev_hash no longer the hash before it), or a gap in the sequence.
        if (row.prevHash !== previous || row.seq !== previousSeq + 1 || entryHash(row) !== row.hash) {
          return { ok: false, entries, first_bad_seq: row.seq };
        }
        previous = row.hash;
        previousSeq = row.seq;
      }
      // The newest entries removed: the sequence handed out more than the chain holds.
      const handedOut = (nextSeq.get() as number | undefined) ?? 0;
      if (handedOut > previousSeq) return { ok: false, entries, first_bad_seq: previousSeq + 1 };
      return { ok: true, entries, first_bad_seq: null };
    },
  };
}
