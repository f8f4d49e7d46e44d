import { defaultDecision, type PolicyDecision, type PolicyRequest } from '../executor/ports';
import type { AnyTool, PermissionSubject, Policy, SideEffect } from '../executor/types';
import { formatRule, parseRule, RULE_LISTS, type RuleList } from './parse-rule';

/** One rule of a list, as the config file, policy.json or the API give it. */
export interface RuleInput {
  list: RuleList;
  rule: string;
  /** Limits the rule to calls of this session; null for every call. */
  session: string | null;
}

/** Finds a tool by name: the registry's `get`. */
export type ToolLookup = (name: string) => AnyTool | undefined;

/** A rule compiled for the hot path: the decision it makes is built once, with it. */
interface CompiledRule {
  session: string | null;
  /** Null for a tool-wide rule. */
  matches: ((subject: string, input: unknown) => boolean) | null;
  decision: PolicyDecision;
}

/** The rules of one tool, deny rules first, then ask, then allow, each list in its order. */
interface ToolRules {
  subject: PermissionSubject | undefined;
  rules: CompiledRule[];
}

/** Rules compiled into a resolver; immutable, rebuilt whenever the rules change. */
export interface RuleSet {
  /** The policy of one call: the first matching rule of deny, ask, allow; else `policies`; else the default. */
  decide(request: PolicyRequest): PolicyDecision;
  /** The first rule of deny, ask, allow that matches the call; null when none does (no fallback). */
  match(request: PolicyRequest): PolicyDecision | null;
  /** A tool's policy for calls no argument-specific or session rule matches (the tools pages). */
  toolWide(tool: string, sideEffect: SideEffect): PolicyDecision;
}

export type CompileRuleResult =
  | { ok: true; tool: string; subject: PermissionSubject | undefined; rule: CompiledRule }
  | { ok: false; message: string };

const DEFAULTS: Record<SideEffect, PolicyDecision> = {
  none: defaultDecision('none'),
  read: defaultDecision('read'),
  write: defaultDecision('write'),
  exec: defaultDecision('exec'),
};

/**
 * Checks one rule against the tools and compiles it: its syntax, that the tool exists, and that
 * a specifier is one the tool's `permissionSubject` understands.
 */
export function compileRule(input: RuleInput, lookup: ToolLookup, source?: string | null): CompileRuleResult {
  const parsed = parseRule(input.rule);
  if (!parsed.ok) return parsed;
  const { tool: name, specifier } = parsed.rule;
  const tool = lookup(name);
  if (!tool) return { ok: false, message: `The rule names the tool "${name}", which is not registered.` };
  const subject = tool.permissionSubject as PermissionSubject | undefined;
  let matches: CompiledRule['matches'] = null;
  if (specifier !== null) {
    if (!subject) {
      return {
        ok: false,
        message: `${name} takes no specifier (it has no permission subject); write "${name}" for every call of it.`,
      };
    }
    try {
      matches = subject.compile(specifier);
    } catch (cause) {
      const reason = cause instanceof Error ? cause.message : String(cause);
      return { ok: false, message: `Bad specifier for ${name} (${subject.describe}): ${reason}.` };
    }
  }
  const session = input.session ? ` [session ${input.session}]` : '';
  const decision: PolicyDecision = {
    policy: input.list,
    rule: `${input.list} ${formatRule(parsed.rule)}${session}`,
    ...(source ? { source } : {}),
  };
  return { ok: true, tool: name, subject, rule: { session: input.session, matches, decision } };
}

/**
 * Whether a rule with a specifier takes a call of several subjects (`PermissionSubject.each`):
 * a deny or ask rule when any subject matches, an allow rule only when every one does (and there
 * is one), so one path outside an allowed folder keeps the call from being allowed by it.
 */
function matchesSubjects(rule: CompiledRule, subjects: readonly string[], input: unknown): boolean {
  const matches = rule.matches as (subject: string, input: unknown) => boolean;
  if (rule.decision.policy === 'allow') return subjects.length > 0 && subjects.every((s) => matches(s, input));
  return subjects.some((subject) => matches(subject, input));
}

/**
 * Compiles rules into a `RuleSet`. Precedence, highest first:
 * 1. the rules, deny before ask before allow; in a list, the first that matches (config rules
 *    come before data rules, as `rules` lists them);
 * 2. the config's `policies` map (`policies.<tool> = <policy>`): a tool-wide fallback that stands
 *    in for the side-effect default, so an explicit rule always beats it;
 * 3. the side-effect default: `none`/`read` allow, `write`/`exec` ask.
 * Throws on a rule that does not compile: check rules with `compileRule` first.
 */
export function compileRuleSet(
  rules: readonly RuleInput[],
  policies: Readonly<Record<string, Policy>>,
  lookup: ToolLookup,
  files: { config: string | null; data: string | null } = { config: null, data: null },
): RuleSet {
  const byTool = new Map<string, ToolRules>();
  for (const list of RULE_LISTS) {
    for (const input of rules) {
      if (input.list !== list) continue;
      const source = (input as { source?: string }).source === 'config' ? files.config : files.data;
      const compiled = compileRule(input, lookup, source);
      if (!compiled.ok) throw new Error(`${input.list} ${input.rule}: ${compiled.message}`);
      let entry = byTool.get(compiled.tool);
      if (!entry) {
        entry = { subject: compiled.subject, rules: [] };
        byTool.set(compiled.tool, entry);
      }
      entry.rules.push(compiled.rule);
    }
  }
  const fallbacks = new Map<string, PolicyDecision>(
    Object.entries(policies).map(([tool, policy]) => [
      tool,
      { policy, rule: `policies.${tool} = ${policy}`, ...(files.config ? { source: files.config } : {}) },
    ]),
  );
  const fallback = (tool: string, sideEffect: SideEffect) => fallbacks.get(tool) ?? DEFAULTS[sideEffect];

  // The hot path: no parsing, no allocation but the subject, computed once and only when a rule needs it.
  const match = (request: PolicyRequest): PolicyDecision | null => {
    const entry = byTool.get(request.tool);
    if (entry) {
      let subject: string | undefined;
      // A subject with `each` (an upstream MCP tool: every path of the call) gives several subjects.
      let subjects: string[] | undefined;
      for (const rule of entry.rules) {
        if (rule.session !== null && rule.session !== request.sessionId) continue;
        if (rule.matches) {
          const each = (entry.subject as PermissionSubject).each;
          if (each) {
            subjects ??= each.call(entry.subject, request.input);
            if (!matchesSubjects(rule, subjects, request.input)) continue;
          } else {
            subject ??= (entry.subject as PermissionSubject).of(request.input);
            if (!rule.matches(subject, request.input)) continue;
          }
        }
        return rule.decision;
      }
    }
    return null;
  };
  const decide = (request: PolicyRequest): PolicyDecision =>
    match(request) ?? fallback(request.tool, request.sideEffect);

  return {
    decide,
    match,
    toolWide(tool, sideEffect) {
      const wide = byTool.get(tool)?.rules.find((rule) => rule.matches === null && rule.session === null);
      return wide?.decision ?? fallback(tool, sideEffect);
    },
  };
}
