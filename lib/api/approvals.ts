import { z } from 'zod';
import type { PendingApproval } from '../approvals/approval-queue';
import { toJson } from '../db/json-column';
import { argumentsPreview } from '../db/list-query';
import type { StoredTrace, TraceSummary } from '../db/trace-store';
import { ApiError } from '../errors';
import { REDACTED } from '../executor/redact';
import type { Registry } from '../executor/registry';
import type { CallPrincipal } from '../executor/types';
import type { Toolscope } from '../server/create-toolscope';
import { iso, principalJson, summaryJson } from './serialize';

/**
 * A pending call as `GET /api/v1/approvals` lists it. `suggested_specifier` is what "Always
 * allow" would name for this call: the specifier that matches exactly its subject and nothing
 * else (the literal path, argv or `METHOD URL`, glob characters escaped: a path `w/*` is `w/\*`);
 * null for tools that take no specifier or have no exact one, and when a secret is in the subject.
 */
export function pendingApprovalJson(pending: PendingApproval, registry?: Pick<Registry, 'get'>) {
  return {
    trace_id: pending.traceId,
    tool_call_id: pending.toolCallId,
    session_id: pending.sessionId,
    actor: pending.actor,
    principal: pending.principal && principalJson(pending.principal),
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
  if (!subject?.exact) return null;
  try {
    const text = subject.exact(pending.arguments);
    return text && !text.includes(REDACTED) ? text : null;
  } catch {
    return null;
  }
}

/**
 * The calls waiting for a person, oldest first, as `GET /api/v1/approvals` lists them; with
 * `principalId`, only the calls that principal made (an agent waits for its own).
 */
export function approvalsJson(ts: Pick<Toolscope, 'approvals' | 'executor'>, principalId?: string) {
  const pending = ts.approvals.list().filter((entry) => !principalId || entry.principal?.id === principalId);
  return { approvals: pending.map((entry) => pendingApprovalJson(entry, ts.executor.registry)) };
}

export const decisionBody = z
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
 * Decides a pending call as `by`: `{ "decision": "approve" | "deny", "reason"?, "arguments"?,
 * "always"?: { "specifier"?, "session"? } }`. Resolves with the trace summary once the decision is
 * recorded (the call then runs, or is denied). Throws 400 with field errors for edited arguments
 * that do not fit the tool (the call stays pending) or an "always" rule that cannot be made; 404
 * for an unknown trace; 409 NOT_PENDING when it is not waiting.
 */
export async function decideApproval(
  ts: Toolscope,
  traceId: string,
  input: z.infer<typeof decisionBody>,
  by: CallPrincipal,
): Promise<Record<string, unknown>> {
  if (!ts.approvals.get(traceId)) {
    const stored = traceId.length <= 256 ? ts.store.get(traceId) : null;
    if (!stored) throw new ApiError('NOT_FOUND', `No trace with id "${traceId.slice(0, 256)}".`);
    throw new ApiError('NOT_PENDING', `The call ${traceId} is not waiting for approval (it is ${stored.status}).`, {
      status: stored.status,
    });
  }
  const recorded = decisionRecorded(ts, traceId);
  const outcome = ts.approvals.decide(traceId, input, by);
  if (!outcome.ok) {
    recorded.cancel();
    if (outcome.reason === 'invalid_arguments') {
      // One entry per field, as the policy API's `details.errors`.
      const issues = (outcome.error.details as { issues?: unknown } | undefined)?.issues ?? [];
      throw new ApiError('INVALID_ARGUMENTS', outcome.error.message, { errors: issues });
    }
    if (outcome.reason === 'invalid_rule') throw new ApiError('INVALID_RULE', outcome.message);
    if (outcome.reason === 'rule_shadowed') {
      throw new ApiError('RULE_SHADOWED', outcome.message, { rule: outcome.shadowedBy });
    }
    if (outcome.reason === 'self_approval') {
      throw new ApiError(
        'SELF_APPROVAL',
        `The call ${traceId} was made with this key (${by.name}): another person must approve or deny it.`,
      );
    }
    throw new ApiError('NOT_PENDING', `The call ${traceId} is no longer waiting for approval.`);
  }
  const record = await recorded.done;
  const body = record ? summaryJson(summaryOf(record)) : { id: traceId };
  return { ...body, rule_created: outcome.ruleCreated };
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
    principal: record.principal,
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
