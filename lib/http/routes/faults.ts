import { faultRuleJson } from '../../api/faults';
import { ApiError } from '../../errors';
import type { FaultRule } from '../../faults/fault-store';
import { type FaultRuleIssue, isFaultRuleError } from '../../faults/rule-schema';
import type { Toolscope } from '../../server/create-toolscope';
import { audit } from '../audit';
import { jsonBody, paramOf } from '../request';
import { json } from '../respond';
import { defineRoutes } from '../route';

const MAX_BODY_BYTES = 256 * 1024;

const ruleJson = (ts: Toolscope, rule: FaultRule) => faultRuleJson(rule, ts.faults.isActive(rule));

function invalidRule(issues: FaultRuleIssue[]): ApiError {
  const first = issues[0] ?? { path: 'body', message: 'is not a valid fault rule' };
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  return new ApiError('INVALID_FAULT_RULE', `${first.path}: ${first.message}${more}`, { errors: issues });
}

const notFound = (id: string) => new ApiError('NOT_FOUND', `No fault rule with id "${id.slice(0, 256)}".`);

/** Runs a rule change, turning a refused rule into its 400. */
function checked<T>(change: () => T): T {
  try {
    return change();
  } catch (error) {
    if (isFaultRuleError(error)) throw invalidRule(error.issues);
    throw error;
  }
}

export default defineRoutes([
  {
    /** `GET /api/v1/faults`: `{ "faults": [rule…], "active": <rules that can fire now> }`, newest first. */
    method: 'GET',
    path: '/api/v1/faults',
    action: 'faults.read',
    handle: (c, ts) =>
      json(c, { faults: ts.faults.list().map((rule) => ruleJson(ts, rule)), active: ts.faults.activeCount() }),
  },
  {
    /**
     * `POST /api/v1/faults` with `{ "name", "tool", "kind", "session_id"?, "params"?, "probability"?,
     * "seed"?, "max_hits"?, "expires_at"?, "enabled"? }`: 201 with the rule; 400 `INVALID_FAULT_RULE`
     * naming the field (`details.errors: [{ path: "params.n", message }]`).
     */
    method: 'POST',
    path: '/api/v1/faults',
    action: 'faults.write',
    body: 'json',
    maxBodyBytes: MAX_BODY_BYTES,
    handle(c, ts) {
      const body = jsonBody(c);
      const rule = checked(() => ts.faults.create(body));
      audit(c, ts, 'fault_rule.created', rule.id, { after: faultRuleJson(rule, true) });
      return json(c, ruleJson(ts, rule), 201);
    },
  },
  {
    /** `POST /api/v1/faults/reset`: deletes every rule; `{ "deleted": <n> }`. */
    method: 'POST',
    path: '/api/v1/faults/reset',
    action: 'faults.write',
    handle(c, ts) {
      const deleted = ts.faults.reset();
      audit(c, ts, 'fault_rules.reset', null, { deleted });
      return json(c, { deleted });
    },
  },
  {
    /** `POST /api/v1/faults/disable-all`: disables every enabled rule; `{ "disabled": <n> }`. */
    method: 'POST',
    path: '/api/v1/faults/disable-all',
    action: 'faults.write',
    handle(c, ts) {
      const disabled = ts.faults.disableAll();
      audit(c, ts, 'fault_rules.disabled', null, { disabled });
      return json(c, { disabled });
    },
  },
  {
    /** `GET /api/v1/faults/:id`: the rule, or 404. */
    method: 'GET',
    path: '/api/v1/faults/:id',
    action: 'faults.read',
    handle(c, ts) {
      const id = paramOf(c, 'id');
      const rule = ts.faults.get(id);
      if (!rule) throw notFound(id);
      return json(c, ruleJson(ts, rule));
    },
  },
  {
    /**
     * `PATCH /api/v1/faults/:id` with any of the create fields (and `hits: 0` to reset the counter;
     * a new `seed` restarts the draws): 200 with the rule, 404 unknown, 400 naming the field.
     */
    method: 'PATCH',
    path: '/api/v1/faults/:id',
    action: 'faults.write',
    body: 'json',
    maxBodyBytes: MAX_BODY_BYTES,
    handle(c, ts) {
      const id = paramOf(c, 'id');
      const before = ts.faults.get(id);
      if (!before) throw notFound(id);
      const body = jsonBody(c);
      const rule = checked(() => ts.faults.update(id, body));
      if (!rule) throw notFound(id);
      audit(c, ts, 'fault_rule.updated', id, {
        before: faultRuleJson(before, ts.faults.isActive(before)),
        after: faultRuleJson(rule, ts.faults.isActive(rule)),
      });
      return json(c, ruleJson(ts, rule));
    },
  },
  {
    /** `DELETE /api/v1/faults/:id`: `{ "deleted": true }`, or 404. */
    method: 'DELETE',
    path: '/api/v1/faults/:id',
    action: 'faults.write',
    handle(c, ts) {
      const id = paramOf(c, 'id');
      const before = ts.faults.get(id);
      if (!before || !ts.faults.delete(id)) throw notFound(id);
      audit(c, ts, 'fault_rule.deleted', id, { before: faultRuleJson(before, false) });
      return json(c, { deleted: true });
    },
  },
]);
