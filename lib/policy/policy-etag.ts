import { createHash } from 'node:crypto';
import type { PolicyRule } from './policy-store';

/**
 * The entity tag of the rules in force: a strong ETag over each rule's id, list, text, session
 * and source, so it changes with any rule added, removed or edited, and is the same across a
 * restart for the same rules.
 * @example policyEtag(ts.policy.rules()) // '"2fd4e1c67a2d28fc"'
 */
export function policyEtag(rules: readonly PolicyRule[]): string {
  const hash = createHash('sha256');
  for (const rule of rules) hash.update(JSON.stringify([rule.id, rule.list, rule.rule, rule.session, rule.source]));
  return `"${hash.digest('base64url').slice(0, 22)}"`;
}

/**
 * Whether an `If-Match` header lets a write go ahead against the current tag (RFC 9110 §13.1.1):
 * absent or `*`, or one of its listed tags is the current one (strong comparison: a weak `W/` tag never matches).
 */
export function ifMatchHolds(header: string | undefined, current: string): boolean {
  if (header === undefined) return true;
  const value = header.trim();
  if (value === '*') return true;
  return value
    .split(',')
    .map((tag) => tag.trim())
    .some((tag) => tag === current);
}
