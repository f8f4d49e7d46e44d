import { faultRuleJson } from '@/lib/api/faults';
import type { Toolscope } from '@/lib/server/create-toolscope';
import type { FaultRulesJson } from '@/lib/ui/faults';

/** The rules as `GET /api/v1/faults` answers now: the first render of the page and of the nav's indicator. */
export function faultRulesSnapshot(ts: Pick<Toolscope, 'faults'>): FaultRulesJson {
  return {
    faults: ts.faults.list().map((rule) => faultRuleJson(rule, ts.faults.isActive(rule))),
    active: ts.faults.activeCount(),
  };
}
