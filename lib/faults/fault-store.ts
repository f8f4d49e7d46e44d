import { randomBytes } from 'node:crypto';
import picomatch from 'picomatch';
import type { SqliteDatabase } from '../db/open-database';
import { type Clock, systemClock, type TimerHandle } from '../executor/clock';
import { attemptFault, faultApplies } from '../executor/fault-injection';
import type { FaultRequest, FaultSource } from '../executor/ports';
import type { AttemptFault, FaultKind, FaultSpec } from '../executor/types';
import { drawAt, MAX_SEED } from './prng';
import { type FaultParams, FaultRuleError, faultSpecOf, parseCreate, parsePatch } from './rule-schema';

/** A fault rule as the Faults page and the API show it (camelCase; the API answers it snake_case). */
export interface FaultRule {
  /** `flt_` and 16 hex digits. */
  id: string;
  name: string;
  enabled: boolean;
  /** A tool name, or a picomatch glob over tool names (`http_*`). */
  tool: string;
  /** Only calls of this session; null for every session. */
  sessionId: string | null;
  kind: FaultKind;
  /** The kind's params as the API takes them (snake_case). */
  params: FaultParams;
  /** 0..1: the chance the rule fires on an attempt it matches. */
  probability: number;
  seed: number;
  /** Draws taken from the rule's generator so far. */
  draws: number;
  maxHits: number | null;
  hits: number;
  /** Epoch ms; null for never. */
  expiresAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** Whether a rule can fire now: enabled, not expired, under its maximum hits. */
export function isActive(rule: FaultRule, now: number): boolean {
  return (
    rule.enabled &&
    (rule.expiresAt === null || now < rule.expiresAt) &&
    (rule.maxHits === null || rule.hits < rule.maxHits)
  );
}

/**
 * The fault rules: kept in memory, persisted in `fault_rules`, and the executor's `FaultSource`.
 * Create, update and delete write at once; hits and draws (taken on the hot path) are written
 * in one batch a moment later, and by `flush`/`close`, so a clean restart loses none.
 */
export interface FaultStore extends FaultSource {
  /** True while there are no rules: the executor then skips asking. */
  idle(): boolean;
  /** Every rule, newest first. */
  list(): FaultRule[];
  get(id: string): FaultRule | null;
  /** Adds a rule from the API body (`name`, `tool`, `kind`, `params`…); throws `FaultRuleError`. */
  create(body: unknown): FaultRule;
  /** Changes a rule from the API body; null when there is no such rule; throws `FaultRuleError`. */
  update(id: string, body: unknown): FaultRule | null;
  delete(id: string): boolean;
  /** Deletes every rule; returns how many there were. */
  reset(): number;
  /** Disables every enabled rule; returns how many it disabled. */
  disableAll(): number;
  /** Rules that can fire now (the navigation's indicator). */
  activeCount(): number;
  /** Whether `rule` can fire now, on the store's clock. */
  isActive(rule: FaultRule): boolean;
  /** Writes the hits and draws not yet written. */
  flush(): void;
  /** Flushes and stops the timer; the database stays open (its owner closes it). */
  close(): void;
}

export interface FaultStoreOptions {
  db: SqliteDatabase;
  /** Epoch ms: the executor's clock, which decides expiry. */
  now?: () => number;
  /** How long hits and draws wait to be written together (default 1 s). */
  flushDelayMs?: number;
  /**
   * The timers that write them: the executor's clock port (tests pass the manual clock). Not
   * unref'd: hits not yet written keep the process alive until they are, a second at most.
   */
  timers?: Pick<Clock, 'setTimeout' | 'clearTimeout'>;
  /** New rule ids (tests); by default `flt_` and 16 random hex digits. */
  newId?: () => string;
  /** Seeds for rules created without one; by default a random 32-bit integer. */
  newSeed?: () => number;
}

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

/** A rule ready for the hot path: its tool matcher compiled, its fault in the executor's form. */
interface Compiled {
  rule: FaultRule;
  matches: (tool: string) => boolean;
  spec: FaultSpec;
}

const COLUMNS =
  'id, name, enabled, tool, session_id, kind, params, probability, seed, draws, max_hits, hits, expires_at, created_at, updated_at';

function compileTool(tool: string): (name: string) => boolean {
  if (!/[*?[\]{}()!+@]/.test(tool)) return (name) => name === tool;
  try {
    return picomatch(tool);
  } catch (error) {
    throw new FaultRuleError([{ path: 'tool', message: `not a valid glob: ${(error as Error).message}` }]);
  }
}

function compile(rule: FaultRule): Compiled {
  return { rule, matches: compileTool(rule.tool), spec: faultSpecOf(rule.kind, rule.params) };
}

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

const copy = (rule: FaultRule): FaultRule => ({ ...rule, params: structuredClone(rule.params) });

/**
 * Opens the fault rules stored in `db` (table `fault_rules`, migration 0007).
 *
 * Matching, per attempt (`faultFor`): rules are tried in creation order; a rule applies when it
 * is enabled, not expired (on `now`), under `max_hits`, its tool name or glob matches the
 * attempt's tool, its session (if any) is the call's, and its kind touches that attempt
 * (`fail_first` only the call's first `n`). A rule with probability 1 fires without a draw; one
 * below 1 takes the next draw of its seeded generator and fires when the draw is below its
 * probability. The first rule that fires wins: its hit is counted and later rules are not asked
 * (they take no draw). Latency's jitter is the rule's next draw. So the same seeds and the same
 * calls give the same faults, across restarts too (draws are persisted).
 */
export function createFaultStore(options: FaultStoreOptions): FaultStore {
  const { db } = options;
  const now = options.now ?? Date.now;
  const flushDelayMs = options.flushDelayMs ?? 1000;
  const timers = options.timers ?? systemClock;
  const newId = options.newId ?? (() => `flt_${randomBytes(8).toString('hex')}`);
  const newSeed = options.newSeed ?? (() => randomBytes(4).readUInt32BE(0) % (MAX_SEED + 1));

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

  // Creation order (rowid breaks ties within a millisecond): the order rules are tried in.
  let rules: Compiled[] = (
    db.prepare(`SELECT ${COLUMNS} FROM fault_rules ORDER BY created_at, rowid`).all() as Row[]
  ).map((row) => compile(fromRow(row)));

  const dirty = new Set<FaultRule>();
  let timer: TimerHandle | null = null;

  const writeCounters = db.transaction((changed: FaultRule[]) => {
    for (const rule of changed) counters.run(rule.hits, rule.draws, rule.id);
  });

  function flush(): void {
    if (timer !== null) {
      timers.clearTimeout(timer);
      timer = null;
    }
    if (dirty.size === 0) return;
    const changed = [...dirty];
    dirty.clear();
    try {
      writeCounters(changed);
    } catch (error) {
      for (const rule of changed) dirty.add(rule);
      throw error;
    }
  }

  function countersChanged(rule: FaultRule): void {
    dirty.add(rule);
    if (timer !== null) return;
    timer = timers.setTimeout(() => {
      timer = null;
      try {
        flush();
      } catch (error) {
        console.error('[toolscope] could not write fault rule hits; retrying with the next change:', error);
      }
    }, flushDelayMs);
  }

  function find(id: string): Compiled | undefined {
    return rules.find((c) => c.rule.id === id);
  }

  function nextDraw(rule: FaultRule): number {
    const value = drawAt(rule.seed, rule.draws);
    rule.draws++;
    return value;
  }

  function faultFor(request: FaultRequest): AttemptFault | null {
    if (rules.length === 0) return null;
    const at = now();
    for (const { rule, matches, spec } of rules) {
      if (!rule.enabled) continue;
      if (rule.sessionId !== null && rule.sessionId !== request.sessionId) continue;
      if (rule.expiresAt !== null && at >= rule.expiresAt) continue;
      if (rule.maxHits !== null && rule.hits >= rule.maxHits) continue;
      if (!matches(request.tool) || !faultApplies(spec, request.attempt)) continue;
      if (rule.probability < 1) {
        if (rule.probability <= 0) continue;
        const draw = nextDraw(rule);
        countersChanged(rule);
        if (draw >= rule.probability) continue;
      }
      rule.hits++;
      countersChanged(rule);
      return attemptFault(spec, { id: rule.id, name: rule.name }, () => nextDraw(rule));
    }
    return null;
  }

  return {
    faultFor,
    idle: () => rules.length === 0,
    list: () => rules.map((c) => copy(c.rule)).reverse(),
    get: (id) => {
      const found = find(id);
      return found ? copy(found.rule) : null;
    },
    create(body) {
      const input = parseCreate(body);
      const at = now();
      const rule: FaultRule = {
        id: newId(),
        name: input.name,
        enabled: input.enabled ?? true,
        tool: input.tool,
        sessionId: input.session_id ?? null,
        kind: input.kind,
        params: input.params,
        probability: input.probability ?? 1,
        seed: input.seed ?? newSeed(),
        draws: 0,
        maxHits: input.max_hits ?? null,
        hits: 0,
        expiresAt: input.expires_at ?? null,
        createdAt: at,
        updatedAt: at,
      };
      const compiled = compile(rule);
      insert.run(toRow(rule));
      rules = [...rules, compiled];
      return copy(rule);
    },
    update(id, body) {
      const found = find(id);
      if (!found) return null;
      const current = found.rule;
      const patch = parsePatch(body, current);
      const next: FaultRule = {
        ...current,
        name: patch.name ?? current.name,
        enabled: patch.enabled ?? current.enabled,
        tool: patch.tool ?? current.tool,
        sessionId: patch.session_id === undefined ? current.sessionId : patch.session_id,
        kind: patch.kind ?? current.kind,
        params: patch.params ?? current.params,
        probability: patch.probability ?? current.probability,
        maxHits: patch.max_hits === undefined ? current.maxHits : patch.max_hits,
        expiresAt: patch.expires_at === undefined ? current.expiresAt : patch.expires_at,
        updatedAt: now(),
      };
      // A new seed starts its sequence from the beginning.
      if (patch.seed !== undefined && patch.seed !== current.seed) {
        next.seed = patch.seed;
        next.draws = 0;
      }
      if (patch.hits === 0) next.hits = 0;
      const compiled = compile(next);
      replace.run(toRow(next));
      dirty.delete(current);
      rules = rules.map((c) => (c === found ? compiled : c));
      return copy(next);
    },
    delete(id) {
      const found = find(id);
      if (!found) return false;
      remove.run(id);
      dirty.delete(found.rule);
      rules = rules.filter((c) => c !== found);
      return true;
    },
    reset() {
      const count = rules.length;
      removeAll.run();
      dirty.clear();
      rules = [];
      return count;
    },
    disableAll() {
      const at = now();
      const enabled = rules.filter((c) => c.rule.enabled);
      disable.run(at);
      for (const c of enabled) {
        c.rule.enabled = false;
        c.rule.updatedAt = at;
      }
      return enabled.length;
    },
    activeCount() {
      const at = now();
      let count = 0;
      for (const c of rules) if (isActive(c.rule, at)) count++;
      return count;
    },
    isActive: (rule) => isActive(rule, now()),
    flush,
    close() {
      flush();
    },
  };
}
