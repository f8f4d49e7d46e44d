import { randomBytes } from 'node:crypto';
import type { SqliteDatabase } from '../db/open-database';
import { type Clock, systemClock, type TimerHandle } from '../executor/clock';
import type { FaultRequest, FaultSource } from '../executor/ports';
import type { AttemptFault } from '../executor/types';
import { type CompiledRule, compileRule, type FaultRule, isActive, pickFault } from './fault-rule';
import { createFaultRuleRows } from './fault-rule-rows';
import { MAX_SEED } from './prng';
import { parseCreate, parsePatch } from './rule-schema';

export { type FaultRule, isActive } from './fault-rule';

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
  /** Told after a rule was created, updated or deleted, or all were (`reset`, id null): the event stream. */
  onChange?: (type: 'created' | 'updated' | 'deleted' | 'reset', ruleId: string | null) => void;
}

const copy = (rule: FaultRule): FaultRule => ({ ...rule, params: structuredClone(rule.params) });

/**
 * Opens the fault rules stored in `db` (table `fault_rules`, migration 0007).
 * Matching is `pickFault` (`fault-rule.ts`): rules in creation order, the first that fires wins.
 * The same seeds and the same calls give the same faults, across restarts too (draws persist).
 */
export function createFaultStore(options: FaultStoreOptions): FaultStore {
  const { db } = options;
  const now = options.now ?? Date.now;
  const flushDelayMs = options.flushDelayMs ?? 1000;
  const timers = options.timers ?? systemClock;
  const newId = options.newId ?? (() => `flt_${randomBytes(8).toString('hex')}`);
  const newSeed = options.newSeed ?? (() => randomBytes(4).readUInt32BE(0) % (MAX_SEED + 1));

  const rows = createFaultRuleRows(db);
  const changed = (type: 'created' | 'updated' | 'deleted' | 'reset', ruleId: string | null) => {
    try {
      options.onChange?.(type, ruleId);
    } catch (error) {
      console.error('[toolscope] a fault rule listener failed:', error);
    }
  };

  // Creation order: the order rules are tried in. A stored rule whose glob no longer compiles is left out.
  let rules: CompiledRule[] = rows.load().flatMap((rule) => {
    try {
      return [compileRule(rule)];
    } catch (error) {
      console.error(`[toolscope] fault rule ${rule.id} (${rule.name}) is not a valid rule and is ignored:`, error);
      return [];
    }
  });

  const dirty = new Set<FaultRule>();
  let timer: TimerHandle | null = null;

  function flush(): void {
    if (timer !== null) {
      timers.clearTimeout(timer);
      timer = null;
    }
    if (dirty.size === 0) return;
    const changed = [...dirty];
    dirty.clear();
    try {
      rows.writeCounters(changed);
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

  function find(id: string): CompiledRule | undefined {
    return rules.find((c) => c.rule.id === id);
  }

  function faultFor(request: FaultRequest): AttemptFault | null {
    return rules.length === 0 ? null : pickFault(rules, request, now(), countersChanged);
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
      const compiled = compileRule(rule);
      rows.insert(rule);
      rules = [...rules, compiled];
      changed('created', rule.id);
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
      const compiled = compileRule(next);
      rows.replace(next);
      dirty.delete(current);
      rules = rules.map((c) => (c === found ? compiled : c));
      changed('updated', id);
      return copy(next);
    },
    delete(id) {
      const found = find(id);
      if (!found) return false;
      rows.remove(id);
      dirty.delete(found.rule);
      rules = rules.filter((c) => c !== found);
      changed('deleted', id);
      return true;
    },
    reset() {
      const count = rules.length;
      rows.removeAll();
      dirty.clear();
      rules = [];
      changed('reset', null);
      return count;
    },
    disableAll() {
      const at = now();
      const enabled = rules.filter((c) => c.rule.enabled);
      rows.disableAll(at);
      for (const c of enabled) {
        c.rule.enabled = false;
        c.rule.updatedAt = at;
      }
      for (const c of enabled) changed('updated', c.rule.id);
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
