import { approvalsJson, decideApproval, decisionBody } from '../../api/approvals';
import { audit } from '../audit';
import { jsonBody, paramOf, parseWith } from '../request';
import { json } from '../respond';
import { defineRoutes } from '../route';

export default defineRoutes([
  {
    /** `GET /api/v1/approvals`: the calls waiting for a person, oldest first. */
    method: 'GET',
    path: '/api/v1/approvals',
    action: 'approvals.read',
    handle(c, ts) {
      if (c.get('reach') === 'own') return json(c, approvalsJson(ts, c.get('principal').id));
      return json(c, { ...approvalsJson(ts), notify: ts.notifier.status() });
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
      audit(c, ts, 'approval.decided', traceId, {
        decision: input.decision,
        reason: input.reason ?? null,
        edited_arguments: input.arguments !== undefined,
        rule_created: decided.rule_created ?? null,
        tool: decided.tool ?? null,
      });
      return json(c, decided);
    },
  },
]);
