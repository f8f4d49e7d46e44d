import { z } from 'zod';
import type { PendingApproval } from '../approvals/approval-queue';
import { type AssistantMessageJson, assistantMessagesByBatch } from '../calls/assistant-message';
import { toJson } from '../db/json-column';
import { argumentsPreview } from '../db/list-query';
import type { StoredTrace, TraceSummary } from '../db/trace-store';
import { ApiError, toApiError } from '../errors';
import type { CallPreview } from '../executor/call-preview';
import { REDACTED } from '../executor/redact';
import type { Registry } from '../executor/registry';
import type { CallPrincipal } from '../executor/types';
import type { Toolscope } from '../server/create-toolscope';
import { serverRedactor } from '../server/server-redactor';
import { callPreview, callSummary, pendingCallPreview } from '../tools/previews';
import { iso, principalJson, summaryJson } from './serialize';

/** What a pending call's JSON tells beyond the queue's entry: its batch, its message, a preview read from disk. */
export interface PendingContext {
  batchId?: string | null;
  assistantMessage?: AssistantMessageJson | null;
  /** The preview with what the call would change now (`approvalsJson` reads it); else made from the arguments alone. */
  preview?: CallPreview;
}

/**
 * A pending call as `GET /api/v1/approvals` lists it. `suggested_specifier` is what "Always
 * allow" would name for this call: the specifier that matches exactly its subject and nothing
 * else (the literal path, argv or `METHOD URL`, glob characters escaped: a path `w/*` is `w/\*`);
 * null for tools that take no specifier or have no exact one, and when a secret is in the subject.
 * `summary` and `preview` are the tool's reading of the call (`ToolDefinition.describe`), from
 * the redacted arguments; `batch_id` and `assistant_message` say which request it came with and
 * what the model said with it (why it asks).
 */
export function pendingApprovalJson(
  pending: PendingApproval,
  registry?: Pick<Registry, 'get'>,
  context: PendingContext = {},
) {
  const describer = registry?.get(pending.tool)?.describe;
  return {
    trace_id: pending.traceId,
    tool_call_id: pending.toolCallId,
    session_id: pending.sessionId,
    batch_id: context.batchId ?? null,
    actor: pending.actor,
    principal: pending.principal && principalJson(pending.principal),
    tool: pending.tool,
    side_effect: pending.sideEffect,
    arguments: pending.arguments,
    summary: callSummary(describer, pending.arguments),
    preview: context.preview ?? callPreview(describer, pending.arguments),
    assistant_message: context.assistantMessage ?? null,
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

type QueueParts = Pick<Toolscope, 'approvals' | 'executor' | 'store' | 'config'>;

/** Previews read from disk at once at most (`write_file`'s diffs). */
const PREVIEW_READS = 8;

/** The batch a pending call came with: the executor holds every waiting call, the store the rest. */
function batchOf(ts: Pick<Toolscope, 'executor' | 'store'>, traceId: string): string | null {
  const live = ts.executor.inFlight(traceId);
  return live ? live.batchId : (ts.store.get(traceId)?.batchId ?? null);
}

/**
 * The calls waiting for a person, oldest first, as `GET /api/v1/approvals` lists them; with
 * `principalId`, only the calls that principal made (an agent waits for its own). Each with its
 * batch's message and its preview as things stand now (`write_file`: the diff against the file on
 * disk, its text scrubbed of the server's known secrets as the stored arguments were).
 */
export async function approvalsJson(ts: QueueParts, principalId?: string) {
  const pending = ts.approvals.list().filter((entry) => !principalId || entry.principal?.id === principalId);
  const registry = ts.executor.registry;
  const batches = pending.map((entry) => batchOf(ts, entry.traceId));
  const messages = assistantMessagesByBatch([...new Set(batches)], ts.store);
  const redactor = serverRedactor(ts.config);
  const scrub = (text: string) => redactor.scrubText(text);
  const previews: CallPreview[] = new Array(pending.length);
  // A few files read at a time: a long queue of writes must not open hundreds at once.
  let next = 0;
  const worker = async () => {
    for (let at = next++; at < pending.length; at = next++) {
      const entry = pending[at] as PendingApproval;
      previews[at] = await pendingCallPreview(registry.get(entry.tool)?.describe, entry.arguments, scrub);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PREVIEW_READS, pending.length) }, worker));
  return {
    approvals: pending.map((entry, index) => {
      const batchId = batches[index] ?? null;
      return pendingApprovalJson(entry, registry, {
        batchId,
        assistantMessage: batchId === null ? null : (messages[batchId] ?? null),
        preview: previews[index],
      });
    }),
  };
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

export const bulkDecisionBody = z
  .object({
    decision: z.enum(['approve', 'deny']),
    reason: z.string().max(2000).optional(),
    batch_id: z.string().min(1).max(256).optional(),
    session_id: z.string().min(1).max(256).optional(),
  })
  .strict()
  .refine((body) => (body.batch_id === undefined) !== (body.session_id === undefined), {
    message: 'give exactly one of batch_id and session_id',
  });

/** What a bulk decision did: each call decided (its list row), each call skipped and why. */
export interface BulkOutcome {
  decided: Record<string, unknown>[];
  skipped: { id: string; code: string; message: string }[];
}

/**
 * Decides every call waiting in one batch (`batch_id`) or one session (`session_id`) with one
 * decision and one reason, each exactly as `decideApproval` decides one call: the self-approval
 * rule included. A call that cannot be decided (made with `by`'s own key, decided or expired
 * meanwhile) is skipped with its error's code and message, and the others are decided all the same.
 * Nothing waiting there: both lists empty.
 */
export async function decideBulk(
  ts: Toolscope,
  input: z.infer<typeof bulkDecisionBody>,
  by: CallPrincipal,
): Promise<BulkOutcome> {
  const targets = ts.approvals
    .list()
    .filter((entry) =>
      input.session_id !== undefined
        ? entry.sessionId === input.session_id
        : batchOf(ts, entry.traceId) === input.batch_id,
    );
  const decision = { decision: input.decision, ...(input.reason === undefined ? {} : { reason: input.reason }) };
  const settled = await Promise.allSettled(targets.map((entry) => decideApproval(ts, entry.traceId, decision, by)));
  const outcome: BulkOutcome = { decided: [], skipped: [] };
  settled.forEach((result, index) => {
    const id = (targets[index] as PendingApproval).traceId;
    if (result.status === 'fulfilled') {
      outcome.decided.push(result.value);
      return;
    }
    const error = toApiError(result.reason);
    if (error.code === 'INTERNAL_ERROR') console.error(`[toolscope] bulk decision on ${id} failed:`, result.reason);
    outcome.skipped.push({ id, code: error.code, message: error.message });
  });
  return outcome;
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
    approval: record.approval,
    attemptCount: record.attempts.length,
    errorCode: record.error?.code ?? null,
    flags: record.flags,
    argumentsPreview: argumentsPreview(toJson(record.arguments) ?? null),
    sessionSeq: record.sessionSeq ?? null,
    servedFrom: record.servedFrom,
    imported: record.imported === true,
  };
}
