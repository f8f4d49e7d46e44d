import type { Policy } from '@/lib/executor/types';

/** A rule list, in the order the rules are consulted. */
export const LISTS = ['deny', 'ask', 'allow'] as const satisfies readonly Policy[];

/** A rule as `GET /api/v1/policy` gives it. */
export interface PolicyRuleJson {
  id: string;
  list: Policy;
  rule: string;
  session: string | null;
  source: 'config' | 'data';
}

export interface PolicyJson {
  rules: PolicyRuleJson[];
  config_file: string | null;
}

/** A data rule as `PUT /api/v1/policy` takes it. */
export interface RuleBody {
  list: Policy;
  rule: string;
  session: string | null;
}

/** One data rule of a draft: a rule from the server (with its id) or a new one (`key` only). */
export interface DraftRule extends RuleBody {
  key: string;
  /** The server's id; absent for a rule added in this draft. */
  id?: string;
}

/** The data rules (the editable ones) of the server's policy, as the start of a draft. */
export function draftFrom(policy: PolicyJson): DraftRule[] {
  return policy.rules
    .filter((rule) => rule.source === 'data')
    .map((rule) => ({ key: rule.id, id: rule.id, list: rule.list, rule: rule.rule, session: rule.session }));
}

/** What `PUT` and the preview take for a draft. */
export function rulesBody(rules: readonly RuleBody[]): { rules: RuleBody[] } {
  return { rules: rules.map(({ list, rule, session }) => ({ list, rule, session })) };
}

const same = (a: RuleBody, b: RuleBody) =>
  a.list === b.list && a.rule.trim() === b.rule.trim() && a.session === b.session;

/**
 * What a draft changes against the server's data rules, matched as a multiset (the same rule twice
 * counts twice): the draft's rules that are new, and the server's rules the draft no longer has.
 * `changed` is false when the draft would save the same rules in the same order.
 */
export function diffDraft(
  server: readonly DraftRule[],
  draft: readonly DraftRule[],
): { added: Set<string>; removed: DraftRule[]; changed: boolean } {
  const unused = [...server];
  const added = new Set<string>();
  for (const rule of draft) {
    const at = unused.findIndex((r) => same(r, rule));
    if (at === -1) added.add(rule.key);
    else unused.splice(at, 1);
  }
  const inOrder = server.length === draft.length && server.every((rule, i) => same(rule, draft[i] as DraftRule));
  return { added, removed: unused, changed: !inOrder };
}

/** One field error of `400 INVALID_RULES`: `{ path: 'rules[2].rule', message }`. */
export interface RuleError {
  path: string;
  message: string;
}

export type FieldErrors = { rule?: string; session?: string; other?: string };

const RULE_PATH = /^rules\[(\d+)\]\.(rule|session|list)$/;

/**
 * The API's field errors for the rules sent, by the index of the rule in what was sent; errors
 * that name no rule (`body`, `rules`) go under -1.
 */
export function errorsByRule(errors: readonly RuleError[]): Map<number, FieldErrors> {
  const out = new Map<number, FieldErrors>();
  for (const error of errors) {
    const match = RULE_PATH.exec(error.path);
    const index = match ? Number(match[1]) : -1;
    const field = match?.[2] === 'rule' ? 'rule' : match?.[2] === 'session' ? 'session' : 'other';
    const entry = out.get(index) ?? {};
    entry[field] = entry[field] ? `${entry[field]} ${error.message}` : error.message;
    out.set(index, entry);
  }
  return out;
}

export interface PreviewCall {
  trace_id: string;
  tool: string;
  arguments: unknown;
  before: { policy: Policy; rule: string };
  after: { policy: Policy; rule: string };
}

export interface PreviewJson {
  counts: Record<Policy, number>;
  changed: PreviewCall[];
  calls: number;
  skipped: number;
  arguments_redacted: boolean;
}

/**
 * The counts under the rules in force, from the draft's counts and the calls it changes: each
 * changed call moves one from its `after` policy back to its `before` one.
 */
export function countsBefore(preview: Pick<PreviewJson, 'counts' | 'changed'>): Record<Policy, number> {
  const counts = { ...preview.counts };
  for (const call of preview.changed) {
    counts[call.after.policy]--;
    counts[call.before.policy]++;
  }
  return counts;
}
