import type { StoredTrace, TraceSummary } from '../db/trace-store';
import { type ApprovalTimes, approvalWaitMs } from '../executor/approval-wait';
import type {
  ApprovalRecord,
  Attempt,
  AttemptFault,
  CallPrincipal,
  FaultKind,
  ToolErrorData,
  ToolResult,
  TraceRecord,
  TraceStage,
} from '../executor/types';
import { summarizeCall } from '../ui/call-summary';

/** snake_case forms of the executor's data for the HTTP API. */

export function errorJson(error: ToolErrorData | null | undefined) {
  if (!error) return null;
  return {
    code: error.code,
    message: error.message,
    retryable: error.retryable,
    kind: error.kind,
    ...(error.hint ? { hint: error.hint } : {}),
    ...(error.stage ? { stage: error.stage } : {}),
    ...(error.details ? { details: error.details } : {}),
  };
}

export function resultJson(result: ToolResult) {
  const m = result.metadata;
  return {
    tool_call_id: result.toolCallId,
    trace_id: result.traceId,
    tool: result.tool,
    status: result.status,
    success: result.success,
    output: result.success ? (result.output ?? null) : null,
    error: errorJson(result.error),
    latency_ms: result.latencyMs,
    attempts: m.attempts,
    metadata: {
      trace_id: m.traceId,
      attempts: m.attempts,
      stderr: m.stderr,
      exit_code: m.exitCode,
      truncated: m.truncated,
      parse_failed: m.parseFailed,
      fell_back_to: m.fellBackTo,
      faulted: m.faulted,
    },
  };
}

/** A stage; `running` is the stage in progress (its `duration_ms` stays 0 until it ends). */
export function stageJson(stage: TraceStage) {
  return {
    name: stage.name,
    status: stage.status,
    started_at: stage.startedAt,
    duration_ms: stage.durationMs,
    detail: stage.detail,
  };
}

const snakeCase = (key: string) => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/**
 * The fault injected into an attempt: `{ rule_id, rule_name?, kind, ...params }`, the params
 * snake_case as the faults API takes them, with what was applied (latency's `ms` is the real
 * delay, jitter included); `rule_id` null for a one-off fault given with the call. Null without one.
 */
export function attemptFaultJson(fault: AttemptFault | null) {
  if (!fault) return null;
  const { ruleId, ruleName, kind, ...params } = fault;
  const json: { rule_id: string | null; rule_name?: string; kind: FaultKind; [param: string]: unknown } = {
    rule_id: ruleId,
    kind,
  };
  if (ruleName !== undefined) json.rule_name = ruleName;
  for (const [key, value] of Object.entries(params)) json[snakeCase(key)] = value;
  return json;
}

/** An attempt; `running` is the one in progress, `timeout_ms` its deadline (null when not recorded). */
export function attemptJson(attempt: Attempt) {
  return {
    number: attempt.number,
    tool: attempt.tool,
    fallback: attempt.fallback,
    started_at: attempt.startedAt,
    duration_ms: attempt.durationMs,
    outcome: attempt.outcome,
    timeout_ms: attempt.timeoutMs ?? null,
    error: errorJson(attempt.error),
    backoff_ms: attempt.backoffMs,
    backoff_reason: attempt.backoffReason ?? null,
    fault: attemptFaultJson(attempt.fault),
  };
}

/** Who made a call or a decision: `{ id, name, role }` of its verified principal. */
export function principalJson(principal: CallPrincipal) {
  return { id: principal.id, name: principal.name, role: principal.role };
}

/** Epoch ms as ISO 8601; null stays null. */
export const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function flagsJson(flags: TraceRecord['flags']) {
  return {
    retried: flags.retried,
    fell_back: flags.fellBack,
    truncated: flags.truncated,
    faulted: flags.faulted,
    replayed: flags.replayed,
  };
}

/** The audit of a call that waited for approval; null for one that never did. */
export function approvalJson(approval: ApprovalRecord | null) {
  if (!approval) return null;
  return {
    rule: approval.rule,
    requested_at: iso(approval.requestedAt),
    expires_at: iso(approval.expiresAt),
    decision: approval.decision,
    by: approval.by,
    decided_by: approval.decidedBy ? principalJson(approval.decidedBy) : null,
    decided_at: iso(approval.decidedAt),
    reason: approval.reason,
    rule_created: approval.ruleCreated,
  };
}

/**
 * The whole trace, redacted; the sealed raw arguments never leave. Also the live snapshot of a
 * running call (running stage and attempt, output so far). `result.latency_ms` is execution
 * only; `approval_wait_ms` the wait for a person beside it (see `approvalWaitJson`).
 */
export function traceJson(trace: StoredTrace) {
  return {
    id: trace.id,
    tool_call_id: trace.toolCallId,
    session_id: trace.sessionId,
    actor: trace.actor,
    principal: trace.principal && principalJson(trace.principal),
    tool: trace.tool,
    side_effect: trace.sideEffect,
    status: trace.status,
    arguments: trace.arguments,
    edited_arguments: trace.editedArguments,
    approval: approvalJson(trace.approval),
    replay_of: trace.replayOf,
    batch_id: trace.batchId,
    session_seq: trace.sessionSeq ?? null,
    served_from: trace.servedFrom,
    imported: trace.imported === true,
    result: {
      success: trace.status === 'succeeded',
      output: trace.output,
      error: errorJson(trace.error),
      latency_ms: trace.latencyMs,
    },
    approval_wait_ms: approvalWaitJson(trace),
    stages: trace.stages.map(stageJson),
    attempts: trace.attempts.map(attemptJson),
    stdout: trace.stdout,
    stderr: trace.stderr,
    exit_code: trace.exitCode,
    model_message: trace.modelMessage,
    model_truncation: trace.modelTruncation
      ? {
          head_chars: trace.modelTruncation.headChars,
          tail_chars: trace.modelTruncation.tailChars,
          total_chars: trace.modelTruncation.totalChars,
        }
      : null,
    flags: flagsJson(trace.flags),
    metadata: trace.metadata,
    created_at: iso(trace.createdAt),
    finished_at: iso(trace.finishedAt),
  };
}

/**
 * `approval_wait_ms`: how long the call waited for a person, from the request to the decision
 * (while it still waits, up to now); null when it never waited (or the reader did not load it).
 * Kept apart from `latency_ms`, which is execution only.
 */
export function approvalWaitJson(call: { approval?: ApprovalTimes | null; finishedAt: number | null }): number | null {
  const wait = approvalWaitMs(call.approval, call.finishedAt ?? Date.now());
  return wait === null ? null : Math.round(wait);
}

/** A list row; `arguments_preview` is the start of the redacted arguments JSON (200 characters). */
export function summaryJson(summary: TraceSummary) {
  return {
    id: summary.id,
    tool_call_id: summary.toolCallId,
    session_id: summary.sessionId,
    actor: summary.actor,
    principal: summary.principal && principalJson(summary.principal),
    tool: summary.tool,
    status: summary.status,
    latency_ms: summary.latencyMs,
    approval_wait_ms: approvalWaitJson(summary),
    attempts: summary.attemptCount,
    error_code: summary.errorCode,
    arguments_preview: summary.argumentsPreview,
    // The tool's one-line reading of the call (`lib/ui/call-summary.ts`), from the preview above.
    summary: summarizeCall(summary.tool, summary.argumentsPreview),
    session_seq: summary.sessionSeq,
    served_from: summary.servedFrom,
    imported: summary.imported,
    flags: flagsJson(summary.flags),
    created_at: iso(summary.createdAt),
    finished_at: iso(summary.finishedAt),
  };
}
