import type { attemptJson, errorJson, stageJson, traceJson } from '../api/serialize';
import type { AssistantMessageJson } from '../calls/assistant-message';
import type { Attempt, AttemptFault, ToolErrorData, TraceRecord, TraceStage } from '../executor/types';

/** `GET /api/v1/traces/:id` as the API sends it: the trace, and the server's clock when it answered. */
export type TraceJson = ReturnType<typeof traceJson> & {
  replays: string[];
  /** The replays still running or awaiting approval; absent from servers before it was sent. */
  replays_in_flight?: { id: string; status: 'running' | 'awaiting_approval' }[];
  server_time: string;
  /** What the model said with the call's request; absent from servers before it was kept. */
  assistant_message?: AssistantMessageJson | null;
};

/**
 * A trace as the browser holds it: everything but the sealed raw arguments, which never leave;
 * plus its place in its session (null without a session).
 */
export type TraceView = Omit<TraceRecord, 'rawArguments' | 'rawEditedArguments'> & {
  sessionSeq?: number | null;
  /** The call came from an imported file (read-only). */
  imported?: boolean;
};

const epoch = (iso: string | null) => (iso === null ? null : Date.parse(iso));

function errorFromJson(error: ReturnType<typeof errorJson>): ToolErrorData | null {
  if (!error) return null;
  return { ...error, stage: error.stage } as ToolErrorData;
}

function stageFromJson(stage: ReturnType<typeof stageJson>): TraceStage {
  return {
    name: stage.name,
    status: stage.status,
    startedAt: stage.started_at,
    durationMs: stage.duration_ms,
    detail: stage.detail,
  };
}

const camel = (key: string) => key.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());

/**
 * An attempt's fault from the API's `{ rule_id, rule_name?, kind, ...params }` (snake_case) back
 * to the executor's `AttemptFault`; only the top-level keys are renamed (a `corrupt_output`
 * replacement value stays as it is).
 */
export function faultFromJson(json: unknown): AttemptFault | null {
  if (!json || typeof json !== 'object' || Array.isArray(json)) return null;
  const fault: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(json)) fault[camel(key)] = value;
  if (typeof fault.kind !== 'string') return null;
  if (fault.ruleId === undefined) fault.ruleId = null;
  return fault as AttemptFault;
}

function attemptFromJson(attempt: ReturnType<typeof attemptJson>): Attempt {
  return {
    number: attempt.number,
    tool: attempt.tool,
    fallback: attempt.fallback,
    startedAt: attempt.started_at,
    durationMs: attempt.duration_ms,
    outcome: attempt.outcome,
    ...(attempt.timeout_ms === null ? {} : { timeoutMs: attempt.timeout_ms }),
    error: errorFromJson(attempt.error),
    backoffMs: attempt.backoff_ms,
    ...(attempt.backoff_reason ? { backoffReason: attempt.backoff_reason } : {}),
    fault: faultFromJson(attempt.fault),
  };
}

/** Turns the API's trace back into the executor's shape, which the trace view renders. */
export function traceFromJson(json: ReturnType<typeof traceJson>): TraceView {
  const truncation = json.model_truncation;
  return {
    ...(json.imported ? { imported: true } : {}),
    id: json.id,
    toolCallId: json.tool_call_id,
    sessionId: json.session_id,
    actor: json.actor,
    principal: json.principal ?? null,
    tool: json.tool,
    status: json.status,
    sideEffect: json.side_effect,
    arguments: json.arguments,
    editedArguments: json.edited_arguments,
    replayOf: json.replay_of,
    batchId: json.batch_id,
    sessionSeq: json.session_seq,
    servedFrom: json.served_from,
    approval: json.approval && {
      rule: json.approval.rule,
      requestedAt: epoch(json.approval.requested_at) ?? 0,
      expiresAt: epoch(json.approval.expires_at),
      decision: json.approval.decision,
      by: json.approval.by,
      decidedBy: json.approval.decided_by ?? null,
      decidedAt: epoch(json.approval.decided_at),
      reason: json.approval.reason,
      ruleCreated: json.approval.rule_created,
    },
    createdAt: epoch(json.created_at) ?? 0,
    finishedAt: epoch(json.finished_at),
    latencyMs: json.result.latency_ms,
    stages: json.stages.map(stageFromJson),
    attempts: json.attempts.map(attemptFromJson),
    output: json.result.output,
    stdout: json.stdout,
    stderr: json.stderr,
    exitCode: json.exit_code,
    error: errorFromJson(json.result.error),
    modelMessage: json.model_message,
    modelTruncation: truncation
      ? { headChars: truncation.head_chars, tailChars: truncation.tail_chars, totalChars: truncation.total_chars }
      : null,
    flags: {
      retried: json.flags.retried,
      fellBack: json.flags.fell_back,
      truncated: json.flags.truncated,
      faulted: json.flags.faulted,
      replayed: json.flags.replayed,
    },
    metadata: json.metadata,
  };
}
