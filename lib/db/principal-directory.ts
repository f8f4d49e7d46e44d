import type { CallPrincipal } from '../executor/types';
import type { SqliteDatabase } from './open-database';

/**
 * How a store refers to the principal of a call: by the small number `tool_calls.principal_ref`
 * holds (a byte or two a call, where the principal's id and name would be dozens).
 */
export interface PrincipalDirectory {
  /** The number of a principal; null for one the directory does not know (not recorded). */
  refOf(principal: CallPrincipal): number | null;
  /** The number of the principal with this id, when it is known; null otherwise. */
  refOfId(id: string): number | null;
  byRef(ref: number): CallPrincipal | null;
}

/** The principals of `access_keys` (`lib/access` keeps them), read once each and kept. */
export function createSqlitePrincipalDirectory(db: SqliteDatabase): PrincipalDirectory {
  const byId = db.prepare('SELECT ref FROM access_keys WHERE id = ?').pluck();
  const byRefRow = db.prepare('SELECT id, name, role FROM access_keys WHERE ref = ?');
  const refs = new Map<string, number>();
  const principals = new Map<number, CallPrincipal>();
  const refOfId = (id: string) => {
    let ref = refs.get(id);
    if (ref === undefined) {
      ref = byId.get(id) as number | undefined;
      if (ref === undefined) return null;
      refs.set(id, ref);
    }
    return ref;
  };
  return {
    refOf: (principal) => refOfId(principal.id),
    refOfId,
    byRef(ref) {
      let principal = principals.get(ref);
      if (!principal) {
        const row = byRefRow.get(ref) as CallPrincipal | undefined;
        if (!row) return null;
        principal = Object.freeze({ id: row.id, name: row.name, role: row.role });
        principals.set(ref, principal);
      }
      return principal;
    },
  };
}

/** A directory in memory: each principal numbered when first seen (the memory store's). */
export function createMemoryPrincipalDirectory(): PrincipalDirectory {
  const refs = new Map<string, number>();
  const principals: CallPrincipal[] = [];
  return {
    refOf(principal) {
      let ref = refs.get(principal.id);
      if (ref === undefined) {
        principals.push({ id: principal.id, name: principal.name, role: principal.role });
        ref = principals.length;
        refs.set(principal.id, ref);
      }
      return ref;
    },
    refOfId: (id) => refs.get(id) ?? null,
    byRef: (ref) => principals[ref - 1] ?? null,
  };
}
