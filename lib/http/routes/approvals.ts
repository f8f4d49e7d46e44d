import { approvalsJson, bulkDecisionBody, decideApproval, decideBulk, decisionBody } from '../../api/approvals';
import { audit } from '../audit';
import { jsonBody, paramOf, parseWith } from '../request';
import { json } from '../respond';
import { defineRoutes } from '../route';

/** The audit entry's detail of one decided call (alone or in bulk). */
function decisionDetail(
  input: { decision: string; reason?: string; arguments?: unknown },
  decided: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) {
  return {
    decision: input.decision,
    reason: input.reason ?? null,
    edited_arguments: input.arguments !== undefined,
    rule_created: decided.rule_created ?? null,
    tool: decided.tool ?? null,
    ...extra,
  };
}

export default defineRoutes([
  {
    /** `GET /api/v1/approvals`: the calls waiting for a person, oldest first. */
    method: 'GET',
    path: '/api/v1/approvals',
    action: 'approvals.read',
    async handle(c, ts) {
      if (c.get('reach') === 'own') return json(c, await approvalsJson(ts, c.get('principal').id));
      return json(c, { ...(await approvalsJson(ts)), notify: ts.notifier.status() });
    },
  },
  {
    /**
     * `POST /api/v1/approvals/bulk` with `{ "decision": "approve" | "deny", "reason"?,
     * "batch_id"? | "session_id"? }` (exactly one of the two): every call waiting in that batch or
     * session decided at once, each as a decision of its own (role, self-approval rule, audit
     * entry). 200 `{ "decided": [trace ids], "skipped": [{ "id", "code", "message" }] }`.
     */
    method: 'POST',
    path: '/api/v1/approvals/bulk',
    action: 'approvals.decide',
    body: 'json',
    async handle(c, ts) {
      const input = parseWith(bulkDecisionBody, jsonBody(c), 'INVALID_REQUEST');
      const outcome = await decideBulk(ts, input, c.get('principal'));
      const scope = input.batch_id !== undefined ? { batch_id: input.batch_id } : { session_id: input.session_id };
      for (const decided of outcome.decided) {
        audit(c, ts, 'approval.decided', String(decided.id), decisionDetail(input, decided, { bulk: scope }));
      }
      return json(c, { decided: outcome.decided.map((decided) => decided.id), skipped: outcome.skipped });
    },
  },
  {
    /**
     * `POST /api/v1/approvals/:trace_id` with `{ "decision": "approve" | "deny", "reason"?,
     * "arguments"?, "always"?: { "specifier"?, "session"? } }`: see `decideApproval`.
     */
    method: 'POST',
    path: '/api/v1/approvals/:traceId',
    action: 'approvals.decide',
    body: 'json',
    async handle(c, ts) {
      const input = parseWith(decisionBody, jsonBody(c), 'INVALID_REQUEST');
      const traceId = paramOf(c, 'traceId');
      const decided = await decideApproval(ts, traceId, input, c.get('principal'));
      audit(c, ts, 'approval.decided', traceId, decisionDetail(input, decided));
      return json(c, decided);
    },
  },
]);
