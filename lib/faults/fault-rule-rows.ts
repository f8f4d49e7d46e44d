import type { SqliteDatabase } from '../db/open-database';
import type { FaultKind } from '../executor/types';
import type { FaultRule } from './fault-rule';
import { checkParams, FAULT_KINDS, type FaultParams } from './rule-schema';

interface Row {
  id: string;
  name: string;
  enabled: number;
  tool: string;
  session_id: string | null;
  kind: string;
  params: string;
  probability: number;
  seed: number;
  draws: number;
  max_hits: number | null;
  hits: number;
  expires_at: number | null;
  created_at: number;
  updated_at: number;
}

const COLUMNS =
  'id, name, enabled, tool, session_id, kind, params, probability, seed, draws, max_hits, hits, expires_at, created_at, updated_at';

function fromRow(row: Row): FaultRule {
  return {
    id: row.id,
    name: row.name,
    enabled: row.enabled === 1,
    tool: row.tool,
    sessionId: row.session_id,
    kind: row.kind as FaultKind,
    params: JSON.parse(row.params) as FaultParams,
    probability: row.probability,
    seed: row.seed,
    draws: row.draws,
    maxHits: row.max_hits,
    hits: row.hits,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toRow(rule: FaultRule): Row {
  return {
    id: rule.id,
    name: rule.name,
    enabled: rule.enabled ? 1 : 0,
    tool: rule.tool,
    session_id: rule.sessionId,
    kind: rule.kind,
    params: JSON.stringify(rule.params),
    probability: rule.probability,
    seed: rule.seed,
    draws: rule.draws,
    max_hits: rule.maxHits,
    hits: rule.hits,
    expires_at: rule.expiresAt,
    created_at: rule.createdAt,
    updated_at: rule.updatedAt,
  };
}

/** The statements of `fault_rules` the store writes with. */
export function createFaultRuleRows(db: SqliteDatabase) {
  const insert = db.prepare(
    `INSERT INTO fault_rules (${COLUMNS}) VALUES (@id, @name, @enabled, @tool, @session_id, @kind, @params, @probability, @seed, @draws, @max_hits, @hits, @expires_at, @created_at, @updated_at)`,
  );
  const replace = db.prepare(
    `UPDATE fault_rules SET name = @name, enabled = @enabled, tool = @tool, session_id = @session_id, kind = @kind,
     params = @params, probability = @probability, seed = @seed, draws = @draws, max_hits = @max_hits, hits = @hits,
     expires_at = @expires_at, updated_at = @updated_at WHERE id = @id`,
  );
  const remove = db.prepare('DELETE FROM fault_rules WHERE id = ?');
  const removeAll = db.prepare('DELETE FROM fault_rules');
  const counters = db.prepare('UPDATE fault_rules SET hits = ?, draws = ? WHERE id = ?');
  const disable = db.prepare('UPDATE fault_rules SET enabled = 0, updated_at = ? WHERE enabled = 1');
  return {
    /**
     * The stored rules, in creation order (rowid breaks ties within a millisecond). A row that
     * no longer makes a rule (edited by hand, or from a newer version with another kind) is left
     * out and logged, so one bad row neither stops the start nor fails calls.
     */
    load(): FaultRule[] {
      const all = db.prepare(`SELECT ${COLUMNS} FROM fault_rules ORDER BY created_at, rowid`).all() as Row[];
      return all.flatMap((row) => {
        try {
          const rule = fromRow(row);
          const known = (FAULT_KINDS as readonly string[]).includes(rule.kind);
          const params = known ? checkParams(rule.kind, rule.params) : null;
          if (params === null || Array.isArray(params)) throw new Error(`kind ${row.kind} with params ${row.params}`);
          return [rule];
        } catch (error) {
          console.error(`[toolscope] fault rule ${row.id} (${row.name}) is not a valid rule and is ignored:`, error);
          return [];
        }
      });
    },
    insert: (rule: FaultRule) => void insert.run(toRow(rule)),
    replace: (rule: FaultRule) => void replace.run(toRow(rule)),
    remove: (id: string) => void remove.run(id),
    removeAll: () => void removeAll.run(),
    /** Disables every enabled rule at `at` (epoch ms). */
    disableAll: (at: number) => void disable.run(at),
    /** Writes the hits and draws of `rules` in one transaction. */
    writeCounters: db.transaction((rules: readonly FaultRule[]) => {
      for (const rule of rules) counters.run(rule.hits, rule.draws, rule.id);
    }),
  };
}
