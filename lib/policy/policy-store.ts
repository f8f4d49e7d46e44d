import { randomBytes } from 'node:crypto';
import { ConfigError } from '../config';
import type { PolicyDecision, PolicyRequest } from '../executor/ports';
import type { Policy, SideEffect } from '../executor/types';
import type { RuleList } from './parse-rule';
import { type DataRule, readPolicyFile, writePolicyFile } from './policy-file';
import { compileRule, compileRuleSet, type RuleInput, type RuleSet, type ToolLookup } from './rule-set';

/** Where a rule lives: the config file (read-only at runtime) or the data folder's policy.json. */
export type RuleSource = 'config' | 'data';

/** A rule as the Policy page and the API show it. */
export interface PolicyRule extends RuleInput {
  /** Stable: `config-<list>-<index>` for the config file's rules, a random `r-…` for data rules. */
  id: string;
  source: RuleSource;
}

/** A rule that does not compile, with its place in what was sent (`rules[2].rule`). */
export interface RuleIssue {
  path: string;
  message: string;
}

/** Rules refused as a whole, one issue per bad rule. Recognise it with `isPolicyRulesError` (by code). */
export class PolicyRulesError extends Error {
  override readonly name = 'PolicyRulesError';
  readonly code = 'INVALID_RULES';
  constructor(readonly issues: RuleIssue[]) {
    super(`Invalid rules: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`);
  }
}

export function isPolicyRulesError(error: unknown): error is PolicyRulesError {
  return error instanceof Error && (error as Partial<PolicyRulesError>).code === 'INVALID_RULES';
}

/** The config file's rules: each list in its order, each rule maybe limited to a session. */
export type ConfigRules = Record<RuleList, readonly { rule: string; session: string | null }[]>;

export interface PolicyStoreOptions {
  configRules: ConfigRules;
  /** The config's `policies` map: tool-wide fallbacks below every rule. */
  policies: Readonly<Record<string, Policy>>;
  /** The config file, named in startup errors; null when none is in use. */
  configFile: string | null;
  /** policy.json in the data folder. */
  dataFile: string;
  lookup: ToolLookup;
}

/**
 * The permission rules in force, and the ones a person edits at runtime.
 * `resolve` is the executor's `PolicyResolver`; it reads a rule set compiled at each change.
 */
export interface PolicyStore {
  /** Every rule, config rules first, each with its source. */
  rules(): PolicyRule[];
  /** Replaces the data rules (a data rule sent again unchanged keeps its id); throws `PolicyRulesError`. */
  replace(rules: readonly RuleInput[]): PolicyRule[];
  /** Appends one data rule to its list ("Always allow"); throws `PolicyRulesError`. */
  add(list: RuleList, rule: string, session?: string | null): PolicyRule;
  /** Removes a data rule; config rules are read-only at runtime. */
  remove(id: string): 'removed' | 'not_found' | 'config';
  /** The issues of draft rules, `rules[i].rule` each; empty when every rule compiles. */
  check(rules: readonly RuleInput[]): RuleIssue[];
  /** The config's rules plus `rules` in place of the data rules, compiled (preview); throws `PolicyRulesError`. */
  draft(rules: readonly RuleInput[]): RuleSet;
  /** The rules in force, compiled. */
  current(): RuleSet;
  /** The executor's `PolicyResolver`: the rules in force decide each call. */
  resolve(request: PolicyRequest): PolicyDecision;
  /** A tool's policy for calls no argument-specific or session rule matches. */
  toolPolicy(tool: string, sideEffect: SideEffect): PolicyDecision;
  readonly dataFile: string;
}

/**
 * Opens the policy: compiles the config's rules and policy.json's against the tools. A rule that
 * does not compile is a `ConfigError` at start, with its path (`permissions.allow.2: …`).
 */
export function createPolicyStore(options: PolicyStoreOptions): PolicyStore {
  const { lookup, policies, dataFile } = options;
  const configRules = configRulesOf(options.configRules);
  // Where each kind of rule is written, named in denials.
  const files = { config: options.configFile, data: dataFile };
  startupCheck(
    `Invalid configuration in ${options.configFile}`,
    (['allow', 'ask', 'deny'] as const).flatMap((list) =>
      options.configRules[list].map((rule, index): [string, RuleInput] => [
        `permissions.${list}.${index}`,
        { list, ...rule },
      ]),
    ),
    lookup,
  );
  let dataRules: DataRule[] = readPolicyFile(dataFile);
  startupCheck(
    `Invalid rules in ${dataFile}`,
    dataRules.map((rule, index) => [`rules.${index}`, rule]),
    lookup,
  );
  const all = (): PolicyRule[] => [...configRules, ...dataRules.map((rule) => ({ ...rule, source: 'data' as const }))];
  let compiled = compileRuleSet(all(), policies, lookup, files);

  const check = (rules: readonly RuleInput[]): RuleIssue[] =>
    rules.flatMap((rule, index) => {
      const result = compileRule(rule, lookup);
      return result.ok ? [] : [{ path: `rules[${index}].rule`, message: result.message }];
    });
  const commit = (next: DataRule[]) => {
    const nextCompiled = compileRuleSet([...configRules, ...next], policies, lookup, files);
    writePolicyFile(dataFile, next);
    dataRules = next;
    compiled = nextCompiled;
  };

  return {
    rules: all,
    replace(rules) {
      const issues = check(rules);
      if (issues.length > 0) throw new PolicyRulesError(issues);
      const unused = [...dataRules];
      commit(
        rules.map((rule) => {
          const session = rule.session ?? null;
          const same = unused.findIndex(
            (r) => r.list === rule.list && r.rule === rule.rule.trim() && r.session === session,
          );
          const id = same === -1 ? newId() : (unused.splice(same, 1)[0] as DataRule).id;
          return { id, list: rule.list, rule: rule.rule.trim(), session };
        }),
      );
      return all();
    },
    add(list, rule, session = null) {
      const issues = check([{ list, rule, session }]).map((i) => ({ ...i, path: 'rule' }));
      if (issues.length > 0) throw new PolicyRulesError(issues);
      const added: DataRule = { id: newId(), list, rule: rule.trim(), session };
      commit([...dataRules, added]);
      return { ...added, source: 'data' };
    },
    remove(id) {
      if (configRules.some((rule) => rule.id === id)) return 'config';
      const next = dataRules.filter((rule) => rule.id !== id);
      if (next.length === dataRules.length) return 'not_found';
      commit(next);
      return 'removed';
    },
    check,
    draft(rules) {
      const issues = check(rules);
      if (issues.length > 0) throw new PolicyRulesError(issues);
      return compileRuleSet([...configRules, ...rules], policies, lookup, files);
    },
    current: () => compiled,
    resolve: (request) => compiled.decide(request),
    toolPolicy: (tool, sideEffect) => compiled.toolWide(tool, sideEffect),
    dataFile,
  };
}

function configRulesOf(rules: ConfigRules): PolicyRule[] {
  return (['allow', 'ask', 'deny'] as const).flatMap((list) =>
    rules[list].map((rule, index) => ({
      id: `config-${list}-${index}`,
      list,
      rule: rule.rule,
      session: rule.session,
      source: 'config' as const,
    })),
  );
}

/** Compiles every rule, reporting all that fail at once, one line each, like the config's own errors. */
function startupCheck(title: string, rules: [string, RuleInput][], lookup: ToolLookup): void {
  const lines = rules.flatMap(([path, rule]) => {
    const result = compileRule(rule, lookup);
    return result.ok ? [] : [`  - ${path}: ${result.message}`];
  });
  if (lines.length > 0) throw new ConfigError(`${title}:\n${lines.join('\n')}`);
}

function newId(): string {
  return `r-${randomBytes(6).toString('hex')}`;
}
