import type { FaultRule } from '../faults/fault-store';
import { type FaultRuleIssue, isFaultRuleError } from '../faults/rule-schema';
import type { Toolscope } from '../server/create-toolscope';
import { apiError, handle, readJsonBody } from './http';
import { guardJsonBody } from './request-guard';
import { iso } from './serialize';

const MAX_BODY_BYTES = 256 * 1024;
const NO_STORE = { 'cache-control': 'no-store' };

type FaultsTs = Pick<Toolscope, 'faults'>;

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

const ruleJson = (ts: FaultsTs, rule: FaultRule) => faultRuleJson(rule, ts.faults.isActive(rule));

function invalidRule(issues: FaultRuleIssue[]): Response {
  const first = issues[0] ?? { path: 'body', message: 'is not a valid fault rule' };
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
  return apiError(400, 'INVALID_FAULT_RULE', `${first.path}: ${first.message}${more}`, { errors: issues });
}

function notFound(id: string): Response {
  return apiError(404, 'NOT_FOUND', `No fault rule with id "${id}".`);
}

/** The JSON body of a write; a 415 when it is not sent as JSON. */
async function readBody(request: Request): Promise<unknown | Response> {
  const json = guardJsonBody(request.headers.get('content-type'));
  if (!json.ok) return apiError(json.status, json.code, json.message);
  return readJsonBody(request, MAX_BODY_BYTES);
}

/** Runs a rule change, turning a refused rule into its 400. */
function checked(change: () => Response): Response {
  try {
    return change();
  } catch (error) {
    if (isFaultRuleError(error)) return invalidRule(error.issues);
    throw error;
  }
}

/** `GET /api/v1/faults`: `{ "faults": [rule…], "active": <rules that can fire now> }`, newest first. */
export function listFaults(ts: FaultsTs): Promise<Response> {
  return handle(() =>
    Response.json(
      { faults: ts.faults.list().map((rule) => ruleJson(ts, rule)), active: ts.faults.activeCount() },
      { headers: NO_STORE },
    ),
  );
}

/**
 * `POST /api/v1/faults` with `{ "name", "tool", "kind", "session_id"?, "params"?, "probability"?,
 * "seed"?, "max_hits"?, "expires_at"?, "enabled"? }`: 201 with the rule; 400 `INVALID_FAULT_RULE`
 * naming the field (`details.errors: [{ path: "params.n", message }]`).
 */
export function createFault(request: Request, ts: FaultsTs): Promise<Response> {
  return handle(async () => {
    const body = await readBody(request);
    if (body instanceof Response) return body;
    return checked(() => Response.json(ruleJson(ts, ts.faults.create(body)), { status: 201 }));
  });
}

/** `GET /api/v1/faults/:id`: the rule, or 404. */
export function getFault(id: string, ts: FaultsTs): Promise<Response> {
  return handle(() => {
    const rule = ts.faults.get(id);
    return rule ? Response.json(ruleJson(ts, rule), { headers: NO_STORE }) : notFound(id);
  });
}

/**
 * `PATCH /api/v1/faults/:id` with any of the create fields (and `hits: 0` to reset the counter;
 * a new `seed` restarts the draws): 200 with the rule, 404 unknown, 400 naming the field.
 */
export function updateFault(request: Request, id: string, ts: FaultsTs): Promise<Response> {
  return handle(async () => {
    if (!ts.faults.get(id)) return notFound(id);
    const body = await readBody(request);
    if (body instanceof Response) return body;
    return checked(() => {
      const rule = ts.faults.update(id, body);
      return rule ? Response.json(ruleJson(ts, rule)) : notFound(id);
    });
  });
}

/** `DELETE /api/v1/faults/:id`: `{ "deleted": true }`, or 404. */
export function deleteFault(id: string, ts: FaultsTs): Promise<Response> {
  return handle(() => (ts.faults.delete(id) ? Response.json({ deleted: true }) : notFound(id)));
}

/** `POST /api/v1/faults/reset`: deletes every rule; `{ "deleted": <n> }`. */
export function resetFaults(ts: FaultsTs): Promise<Response> {
  return handle(() => Response.json({ deleted: ts.faults.reset() }));
}

/** `POST /api/v1/faults/disable-all`: disables every enabled rule; `{ "disabled": <n> }`. */
export function disableAllFaults(ts: FaultsTs): Promise<Response> {
  return handle(() => Response.json({ disabled: ts.faults.disableAll() }));
}
