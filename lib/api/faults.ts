import type { FaultRule } from '../faults/fault-store';
import { iso } from './serialize';

/** A rule as the API answers it; `active`: enabled, not expired, under its maximum hits. */
export function faultRuleJson(rule: FaultRule, active: boolean) {
  return {
    id: rule.id,
    name: rule.name,
    enabled: rule.enabled,
    tool: rule.tool,
    session_id: rule.sessionId,
    kind: rule.kind,
    params: rule.params,
    probability: rule.probability,
    seed: rule.seed,
    max_hits: rule.maxHits,
    hits: rule.hits,
    expires_at: iso(rule.expiresAt),
    created_at: iso(rule.createdAt),
    updated_at: iso(rule.updatedAt),
    active,
  };
}
