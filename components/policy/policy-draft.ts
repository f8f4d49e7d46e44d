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
  /** The answer's `ETag`: a save names it in `If-Match`, so it cannot drop a rule made meanwhile. */
  etag: string | null;
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
export function draftFrom(policy: Omit<PolicyJson, 'etag'>): DraftRule[] {
  return policy.rules
    .filter((rule) => rule.source === 'data')
    .map((rule) => ({ key: rule.id, id: rule.id, list: rule.list, rule: rule.rule, session: rule.session }));
}

/** What `PUT` and the preview take for a draft. */
export function rulesBody(rules: readonly RuleBody[]): { rules: RuleBody[] } {
  return { rules: rules.map(({ list, rule, session }) => ({ list, rule, session })) };
}

/**
 * A draft as edits of the server's data rules: rules added, and server rules (by id) removed.
 * Kept as edits, not as a copy of the rules, so that a rule made meanwhile elsewhere ("Always
 * allow", the API, another tab) is kept when the draft is saved instead of being overwritten.
 */
export interface DraftEdits {
  added: readonly DraftRule[];
  removed: ReadonlySet<string>;
}

export const NO_EDITS: DraftEdits = { added: [], removed: new Set() };

/**
 * The draft's rules: the server's data rules without the removed ones, in their order, then the
 * added ones; `removed` lists the removed rules still on the server (a rule removed there too is
 * no longer an edit); `dirty` when saving would change anything.
 */
export function applyEdits(
  server: readonly DraftRule[],
  edits: DraftEdits,
): { rules: DraftRule[]; removed: DraftRule[]; dirty: boolean } {
  const kept = server.filter((rule) => !edits.removed.has(rule.key));
  const removed = server.filter((rule) => edits.removed.has(rule.key));
  return { rules: [...kept, ...edits.added], removed, dirty: edits.added.length > 0 || removed.length > 0 };
}

/** Removes a rule from the draft: an added rule is dropped, a server rule is marked removed. */
export function removeRule(edits: DraftEdits, key: string): DraftEdits {
  if (edits.added.some((rule) => rule.key === key)) {
    return { ...edits, added: edits.added.filter((rule) => rule.key !== key) };
  }
  return { ...edits, removed: new Set(edits.removed).add(key) };
}

/** Takes a removed server rule back into the draft. */
export function restoreRule(edits: DraftEdits, key: string): DraftEdits {
  const removed = new Set(edits.removed);
  removed.delete(key);
  return { ...edits, removed };
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
