import { z } from 'zod';
import type { PendingApproval } from '../approvals/approval-queue';
import { toJson } from '../db/json-column';
import { argumentsPreview } from '../db/list-query';
import type { StoredTrace, TraceSummary } from '../db/trace-store';
import { REDACTED } from '../executor/redact';
import type { Registry } from '../executor/registry';
import type { Toolscope } from '../server/create-toolscope';
import { zodMessage } from './handlers';
import { apiError, handle, readJsonBody } from './http';
import { guardJsonBody } from './request-guard';
import { iso, summaryJson } from './serialize';

/**
 * A pending call as `GET /api/v1/approvals` lists it. `suggested_specifier` is what "Always
 * allow" would name for this call: the tool's own permission subject (the normalized path, the
 * command, `METHOD URL`) of the redacted arguments; null for tools that take no specifier.
 */
export function pendingApprovalJson(pending: PendingApproval, registry?: Pick<Registry, 'get'>) {
  return {
    trace_id: pending.traceId,
    tool_call_id: pending.toolCallId,
    session_id: pending.sessionId,
    actor: pending.actor,
    tool: pending.tool,
    side_effect: pending.sideEffect,
    arguments: pending.arguments,
    rule: pending.rule,
    requested_at: iso(pending.requestedAt),
    expires_at: iso(pending.expiresAt),
    suggested_specifier: suggestedSpecifier(pending, registry),
  };
}

function suggestedSpecifier(pending: PendingApproval, registry: Pick<Registry, 'get'> | undefined): string | null {
  const subject = registry?.get(pending.tool)?.permissionSubject;
  if (!subject) return null;
  try {
    const text = subject.of(pending.arguments);
    return text && !text.includes(REDACTED) ? text : null;
  } catch {
    return null;
  }
}

/** `GET /api/v1/approvals`: the calls waiting for a person, oldest first. */
export function getApprovals(ts: Pick<Toolscope, 'approvals' | 'executor'>): Response {
  return Response.json(
    { approvals: ts.approvals.list().map((pending) => pendingApprovalJson(pending, ts.executor.registry)) },
    { headers: { 'cache-control': 'no-store' } },
  );
}

const decisionBody = z
  .object({
    decision: z.enum(['approve', 'deny']),
    reason: z.string().max(2000).optional(),
    arguments: z.unknown().optional(),
    always: z
      .object({ specifier: z.string().max(4096).optional(), session: z.boolean().optional() })
      .strict()
      .optional(),
  })
  .strict()
  .refine((body) => body.decision === 'approve' || (body.arguments === undefined && body.always === undefined), {
    message: 'arguments and always go with an approval, not a denial',
  });

/** How long a decision waits for the executor to record it before answering with what is stored. */
const RECORDED_WITHIN_MS = 10_000;

/**
 * `POST /api/v1/approvals/:trace_id` with `{ "decision": "approve" | "deny", "reason"?,
 * "arguments"?, "always"?: { "specifier"?, "session"? } }`, decided as the configured user.
 * 200 with the trace summary once the decision is recorded (the call then runs, or is denied);
 * 400 with field errors for edited arguments that do not fit the tool (the call stays pending)
 * or an "always" rule that cannot be made; 404 for an unknown trace; 409 when it is not waiting.
 */
export function decideApproval(request: Request, traceId: string, ts: Toolscope): Promise<Response> {
  return handle(async () => {
    const json = guardJsonBody(request.headers.get('content-type'));
    if (!json.ok) return apiError(json.status, json.code, json.message);
    const parsed = decisionBody.safeParse(await readJsonBody(request, 1024 * 1024));
    if (!parsed.success) return apiError(400, 'INVALID_REQUEST', zodMessage(parsed.error));
    if (!ts.approvals.get(traceId)) {
      const stored = ts.store.get(traceId);
      if (!stored) return apiError(404, 'NOT_FOUND', `No trace with id "${traceId}".`);
      return apiError(409, 'NOT_PENDING', `The call ${traceId} is not waiting for approval (it is ${stored.status}).`, {
        status: stored.status,
      });
    }
    const recorded = decisionRecorded(ts, traceId);
    const outcome = ts.approvals.decide(traceId, parsed.data, ts.config.approvals.user);
    if (!outcome.ok) {
      recorded.cancel();
      if (outcome.reason === 'invalid_arguments') {
        // One entry per field, as the policy API's `details.errors`.
        const issues = (outcome.error.details as { issues?: unknown } | undefined)?.issues ?? [];
        return apiError(400, 'INVALID_ARGUMENTS', outcome.error.message, { errors: issues });
      }
      if (outcome.reason === 'invalid_rule') return apiError(400, 'INVALID_RULE', outcome.message);
      return apiError(409, 'NOT_PENDING', `The call ${traceId} is no longer waiting for approval.`);
    }
    const record = await recorded.done;
    const body = record ? summaryJson(summaryOf(record)) : { id: traceId };
    return Response.json({ ...body, rule_created: outcome.ruleCreated });
  });
}

/**
 * Resolves with the trace once the decision is recorded: the first write of it that no longer
 * says `awaiting_approval` (running after an approval, or the final record), heard on the event
 * bus, which publishes a write once it is committed. After RECORDED_WITHIN_MS, what is stored.
 */
function decisionRecorded(ts: Pick<Toolscope, 'events' | 'store' | 'executor'>, traceId: string) {
  let stop = () => {};
  const done = new Promise<StoredTrace | null>((resolve) => {
    const finish = () => {
      stop();
      resolve(ts.executor.inFlight(traceId) ?? ts.store.get(traceId));
    };
    const timer = setTimeout(finish, RECORDED_WITHIN_MS);
    const unsubscribe = ts.events.subscribe(
      (event) => {
        if (event.kind !== 'trace') return;
        const { data } = event;
        if (data.trace_id === traceId && data.type !== 'progress' && data.status !== 'awaiting_approval') finish();
      },
      { trace: traceId },
    );
    stop = () => {
      clearTimeout(timer);
      unsubscribe();
    };
  });
  return { done, cancel: () => stop() };
}

/** The list's view of a full record. */
function summaryOf(record: StoredTrace): TraceSummary {
  return {
    id: record.id,
    toolCallId: record.toolCallId,
    sessionId: record.sessionId,
    actor: record.actor,
    tool: record.tool,
    status: record.status,
    createdAt: record.createdAt,
    finishedAt: record.finishedAt,
    latencyMs: record.latencyMs,
    attemptCount: record.attempts.length,
    errorCode: record.error?.code ?? null,
    flags: record.flags,
    argumentsPreview: argumentsPreview(toJson(record.arguments) ?? null),
    sessionSeq: record.sessionSeq ?? null,
    servedFrom: record.servedFrom,
    imported: record.imported === true,
  };
}
