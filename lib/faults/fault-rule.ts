import { attemptFault, faultApplies } from '../executor/fault-injection';
import type { FaultRequest } from '../executor/ports';
import type { AttemptFault, FaultKind, FaultSpec } from '../executor/types';
import { compileToolGlob } from '../policy/tool-glob';
import { drawAt } from './prng';
import { type FaultParams, FaultRuleError, faultSpecOf } from './rule-schema';

/** A fault rule as the Faults page and the API show it (camelCase; the API answers it snake_case). */
export interface FaultRule {
  /** `flt_` and 16 hex digits. */
  id: string;
  name: string;
  enabled: boolean;
  /** A tool name, or a glob over tool names where `*` matches any characters (`http_*`). */
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

/** A rule ready for the hot path: its tool matcher compiled, its fault in the executor's form. */
export interface CompiledRule {
  rule: FaultRule;
  matches: (tool: string) => boolean;
  spec: FaultSpec;
}

/** A tool name matches itself, a glob (`compileToolGlob`) the names it takes; compiled once. */
function compileTool(tool: string): (name: string) => boolean {
  try {
    return compileToolGlob(tool);
  } catch (error) {
    throw new FaultRuleError([{ path: 'tool', message: `not a valid glob: ${(error as Error).message}` }]);
  }
}

/** Compiles a rule for `pickFault`; throws `FaultRuleError` for a tool glob that does not compile. */
export function compileRule(rule: FaultRule): CompiledRule {
  return { rule, matches: compileTool(rule.tool), spec: faultSpecOf(rule.kind, rule.params) };
}

/** The next draw of a rule's seeded generator (the draw counter moves on). */
function nextDraw(rule: FaultRule): number {
  const value = drawAt(rule.seed, rule.draws);
  rule.draws++;
  return value;
}

/**
 * The fault for one attempt, from `rules` in creation order:
 * 1. a rule applies when it is enabled, not expired at `now`, under `max_hits`, its tool name or
 *    glob matches the attempt's tool, its session (if any) is the call's, and its kind touches
 *    that attempt (`fail_first` only the call's first `n`);
 * 2. with probability 1 it fires without a draw; below 1 it takes its generator's next draw and
 *    fires when the draw is below its probability (0 never fires and takes no draw);
 * 3. the first rule that fires wins: its hit is counted, latency's jitter is its next draw, and
 *    later rules are not asked (they take no draw).
 * Hits and draws change on the rules themselves; `changed` is told of each rule whose did.
 */
export function pickFault(
  rules: readonly CompiledRule[],
  request: FaultRequest,
  now: number,
  changed: (rule: FaultRule) => void,
): AttemptFault | null {
  for (const { rule, matches, spec } of rules) {
    if (!rule.enabled) continue;
    if (rule.sessionId !== null && rule.sessionId !== request.sessionId) continue;
    if (rule.expiresAt !== null && now >= rule.expiresAt) continue;
    if (rule.maxHits !== null && rule.hits >= rule.maxHits) continue;
    if (!matches(request.tool) || !faultApplies(spec, request.attempt)) continue;
    if (rule.probability < 1) {
      if (rule.probability <= 0) continue;
      const draw = nextDraw(rule);
      changed(rule);
      if (draw >= rule.probability) continue;
    }
    rule.hits++;
    changed(rule);
    return attemptFault(spec, { id: rule.id, name: rule.name }, () => nextDraw(rule));
  }
  return null;
}
