import type { PolicyDecision, PolicyRequest } from '../executor/ports';
import type { RuleSet } from './rule-set';

/** An allow rule that an ask or deny rule would keep from ever deciding the call it is made for. */
export class RuleShadowedError extends Error {
  override readonly name = 'RuleShadowedError';
  constructor(
    message: string,
    /** The shadowing rule as the Policy page shows it: `ask run_shell(git push *)`. */
    readonly shadowedBy: string,
  ) {
    super(message);
  }
}

export function isRuleShadowedError(error: unknown): error is RuleShadowedError {
  return error instanceof Error && error.name === 'RuleShadowedError' && 'shadowedBy' in error;
}

/**
 * Throws a `RuleShadowedError` when, with the new allow rule in `withRule`, the call it is made
 * for is still decided by an ask or deny rule (those are read before allow rules): saved, the
 * allow rule would never apply to the calls a reviewer saw it made for.
 */
export function refuseShadowed(withRule: RuleSet, call: PolicyRequest, rule: string): void {
  const decided: PolicyDecision | null = withRule.match(call);
  if (!decided || decided.policy === 'allow') return;
  const where = decided.source ? ` (in ${decided.source})` : '';
  throw new RuleShadowedError(
    `"allow ${rule}" would never apply to this call: the rule "${decided.rule}"${where} decides it first ` +
      `(${decided.policy} rules are read before allow rules). Change or remove that rule on the Policy page instead.`,
    decided.rule,
  );
}
