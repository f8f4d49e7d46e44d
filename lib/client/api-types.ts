/**
 * The JSON shapes of Toolscope's HTTP API, as the client sends and receives them (snake_case, times
 * as ISO strings). Self-contained on purpose: an agent imports the client without the server.
 * `api-types.test.ts` keeps them in step with the server's serializers.
 */

export type CallStatus =
  | 'running'
  | 'awaiting_approval'
  | 'succeeded'
  | 'failed'
  | 'denied'
  | 'cancelled'
  | 'interrupted';

export type SideEffect = 'none' | 'read' | 'write' | 'exec';

/** A tool error as the API reports it: a stable `code` and a message written for the model. */
export interface ToolErrorJson {
  code: string;
  message: string;
  retryable: boolean;
  kind: string;
  hint?: string;
  stage?: string;
  details?: Record<string, unknown>;
}

/** What the model said when it asked for a batch of calls; a bare string means `{ text }`. */
export type AssistantMessageInput = string | { text?: string | null; model?: string | null };

/** An OpenAI tool call as `choices[].message.tool_calls` holds it (arguments a JSON string or an object). */
export interface OpenAIToolCallInput {
  id: string;
  type?: 'function';
  function: { name: string; arguments?: string | Record<string, unknown> };
}

/** An Anthropic `tool_use` block as a `Message`'s `content` holds it. */
export interface AnthropicToolUseInput {
  type: 'tool_use';
  id: string;
  name: string;
  /** A JSON object (anything else is a 400); typed as the Anthropic SDK types it. */
  input: unknown;
}

/** The fields of `POST /api/v1/tool-calls` beside the calls. */
export interface BatchFields {
  /** Groups the calls of one agent run. */
  session_id?: string;
  assistant_message?: AssistantMessageInput;
  /** Default 4. */
  max_concurrency?: number;
  fail_fast?: boolean;
  /** false: answer as soon as every call has finished or awaits approval. */
  wait?: boolean;
  /** Recording mode: serve the calls from this recorded session. */
  replay_from?: string;
  on_miss?: 'run' | 'fail';
}

export interface OpenAIToolCallsRequest extends BatchFields {
  tool_calls: OpenAIToolCallInput[];
}

export interface AnthropicToolCallsRequest extends BatchFields {
  tool_use: AnthropicToolUseInput[];
}

/**
 * One call's outcome in `results`. `status: 'awaiting_approval'` when the answer came before a
 * decision, `running` when it came while the approved call ran (its outcome at `GET /api/v1/traces/:id`).
 */
export interface ToolCallResult {
  tool_call_id: string;
  trace_id: string;
  tool: string;
  status: CallStatus;
  success: boolean;
  output: unknown;
  error: ToolErrorJson | null;
  latency_ms: number | null;
  attempts: number;
  metadata: {
    trace_id: string;
    attempts: number;
    stderr?: string | null;
    exit_code?: number | null;
    truncated?: boolean;
    parse_failed?: boolean;
    fell_back_to?: string | null;
    faulted?: boolean;
    /** The request repeated a call (same session and tool call id): this is that call's result; nothing ran again. */
    deduplicated?: true;
  };
}

/** The `role: "tool"` message to append to an OpenAI conversation. */
export interface ToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string;
}

/** The `tool_result` block to send back in an Anthropic user turn. */
export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string;
  is_error: boolean;
}

export interface OpenAIToolCallsResponse {
  results: ToolCallResult[];
  messages: ToolMessage[];
}

export interface AnthropicToolCallsResponse {
  results: ToolCallResult[];
  tool_results: ToolResultBlock[];
}

/** A tool as `GET /api/v1/tools` lists it (Toolscope's own format). */
export interface ToolInfo {
  name: string;
  description: string;
  side_effect: SideEffect;
  policy: 'allow' | 'ask' | 'deny';
  timeout_ms: number;
  retry: { max_attempts: number; base_delay_ms: number; max_delay_ms: number; factor: number; jitter: boolean };
  fallbacks: string[];
  circuit_state: unknown;
  input_schema: Record<string, unknown>;
}

/** A tool in OpenAI's `tools` parameter form. */
export interface OpenAITool {
  type: 'function';
  function: { name: string; description?: string; parameters: Record<string, unknown>; strict?: boolean | null };
}

/** A tool in Anthropic's `tools` parameter form. */
export interface AnthropicTool {
  name: string;
  description?: string;
  input_schema: { type: 'object'; [key: string]: unknown };
}

export type ToolFormat = 'toolscope' | 'openai' | 'anthropic';
export type ToolsOf<F extends ToolFormat> = F extends 'openai'
  ? OpenAITool
  : F extends 'anthropic'
    ? AnthropicTool
    : ToolInfo;

export interface TraceFlags {
  retried: boolean;
  fell_back: boolean;
  truncated: boolean;
  faulted: boolean;
  replayed: boolean;
}

export interface ApprovalAudit {
  rule: string | null;
  requested_at: string | null;
  expires_at: string | null;
  decision: string | null;
  by: string | null;
  decided_at: string | null;
  reason: string | null;
  rule_created: unknown;
}

export interface StageJson {
  name: string;
  status: string;
  /** ms from the call's start. */
  started_at: number;
  duration_ms: number;
  detail: string | null;
}

export interface AttemptJson {
  number: number;
  tool: string;
  fallback: boolean;
  /** ms from the call's start. */
  started_at: number;
  duration_ms: number;
  outcome: string;
  timeout_ms: number | null;
  error: ToolErrorJson | null;
  backoff_ms: number | null;
  backoff_reason: string | null;
  fault: Record<string, unknown> | null;
}

/** What the model said with a batch, as stored (redacted, bounded). */
export interface AssistantMessage {
  text: string | null;
  model: string | null;
  truncated: boolean;
}

/** `GET /api/v1/traces/:id`: the whole redacted trace. */
export interface Trace {
  id: string;
  tool_call_id: string;
  session_id: string | null;
  actor: string;
  tool: string;
  side_effect: SideEffect | null;
  status: CallStatus;
  arguments: unknown;
  edited_arguments: unknown;
  approval: ApprovalAudit | null;
  replay_of: string | null;
  batch_id: string | null;
  session_seq: number | null;
  served_from: unknown;
  /** `latency_ms` is execution only: from arrival to answer less the wait for approval. */
  result: { success: boolean; output: unknown; error: ToolErrorJson | null; latency_ms: number | null };
  /** How long the call waited for a person (to the decision, or so far); null when it never waited. */
  approval_wait_ms: number | null;
  stages: StageJson[];
  attempts: AttemptJson[];
  stdout: string | null;
  stderr: string | null;
  exit_code: number | null;
  /** What the model receives for this call (the `role: "tool"` message's content); null while it runs. */
  model_message: string | null;
  model_truncation: { head_chars: number; tail_chars: number; total_chars: number } | null;
  flags: TraceFlags;
  metadata: unknown;
  created_at: string | null;
  finished_at: string | null;
  /** The batch's assistant message, when the request carried one. */
  assistant_message?: AssistantMessage | null;
  /** Ids of replays of this call. */
  replays?: string[];
  /** The replays of this call still running or awaiting approval. */
  replays_in_flight?: { id: string; status: 'running' | 'awaiting_approval' }[];
  server_time?: string;
}

/** A row of `GET /api/v1/traces`. */
export interface TraceSummary {
  id: string;
  tool_call_id: string;
  session_id: string | null;
  actor: string;
  tool: string;
  status: CallStatus;
  /** Execution only: from arrival to answer less the wait for approval. */
  latency_ms: number | null;
  /** How long the call waited for a person (to the decision, or so far); null when it never waited. */
  approval_wait_ms: number | null;
  attempts: number;
  error_code: string | null;
  arguments_preview: string | null;
  session_seq: number | null;
  served_from: unknown;
  flags: TraceFlags;
  created_at: string | null;
  finished_at: string | null;
  imported?: boolean;
}

export interface TraceQuery {
  tool?: string;
  status?: CallStatus;
  session?: string;
  /** Search text. */
  q?: string;
  /** Epoch ms. */
  from?: number;
  to?: number;
  faulted?: boolean;
  limit?: number;
  cursor?: string;
}

export interface TracePage {
  items: TraceSummary[];
  next_cursor: string | null;
  /** The scan window ended before the page filled: older matches may follow `next_cursor`. */
  partial: boolean;
  total: number | null;
}

/** An agent run: the calls sharing a session id. */
export interface Session {
  id: string;
  first_call_at: string;
  last_call_at: string;
  /** The last call's end; null while a call runs or waits. */
  ended_at: string | null;
  calls: number;
  failed: number;
  denied: number;
  /** Executing now. */
  running: number;
  /** Awaiting a person's decision now. */
  waiting: number;
  approval_wait_ms: number;
  wall_ms: number;
  imported: boolean;
}

export interface SessionQuery {
  /** Case-insensitive substring of the session id. */
  q?: string;
  /** Only sessions with a failure or a denial. */
  failed?: boolean;
  limit?: number;
  cursor?: string;
}

export interface SessionPage {
  sessions: Session[];
  next_cursor: string | null;
}

/** An attempt of a session's call; `started_at` in ms from the call's start, as in the trace. */
export interface SessionAttempt {
  number: number;
  started_at: number;
  duration_ms: number;
  outcome: string;
}

/** A call of a session: the list row plus its batch, times, approval wait and attempts. */
export interface SessionCall extends Omit<TraceSummary, 'attempts'> {
  batch_id: string | null;
  started_at: string | null;
  approval: { requested_at: string | null; decided_at: string | null; decision: string | null } | null;
  attempts: SessionAttempt[];
}

export interface SessionFinding {
  kind: 'repeated_call' | 'repeated_failure';
  tool: string;
  count: number;
  trace_ids: string[];
}

/** `GET /api/v1/sessions/:id`. `calls` there is the list of calls, not the count. */
export interface SessionDetail extends Omit<Session, 'calls'> {
  /** In session order; at most 2,000 (then `calls_truncated`). */
  calls: SessionCall[];
  calls_truncated: boolean;
  findings: SessionFinding[];
  totals: { executing_ms: number; retrying_ms: number; approval_wait_ms: number };
}

/** A call waiting for a person, as `GET /api/v1/approvals` lists it. */
export interface PendingApproval {
  trace_id: string;
  tool_call_id: string;
  session_id: string | null;
  actor: string;
  tool: string;
  side_effect: SideEffect | null;
  arguments: unknown;
  rule: string | null;
  requested_at: string | null;
  expires_at: string | null;
  suggested_specifier: string | null;
}

export interface ApprovalDecision {
  decision: 'approve' | 'deny';
  reason?: string;
  /** Edited arguments to run the call with (approve only). */
  arguments?: unknown;
  /** Also allow calls like this from now on (approve only). */
  always?: { specifier?: string; session?: boolean };
}

/** `POST /api/v1/approvals/:trace_id`'s answer: the call's list row once the decision is recorded. */
export type DecidedApproval = Partial<TraceSummary> & { id: string; rule_created?: unknown };

/** `event: trace`: a call was created, changed, reached a stage, finished an attempt, finished. */
export interface TraceEventData {
  type: 'begin' | 'update' | 'stage' | 'attempt' | 'finish' | 'progress';
  trace_id: string;
  tool: string;
  status: CallStatus;
  session_id: string | null;
  /** Epoch ms. */
  at: number;
  stage?: string;
  attempt?: number;
}

/** `event: approval`: a call started waiting for a person, or was decided. */
export interface ApprovalEventData {
  type: 'requested' | 'decided';
  trace_id: string;
  tool: string;
  session_id: string | null;
  decision?: string;
  at: number;
}

/** `event: fault_rule`: the fault rules changed. */
export interface FaultRuleEventData {
  type: 'created' | 'updated' | 'deleted' | 'reset';
  rule_id: string | null;
  at: number;
}

/**
 * One event of `GET /api/v1/events`, with its id (null from a server that sends none). `reset`:
 * the server could not replay what was missed; refetch what you show.
 */
export type ToolscopeEvent =
  | { event: 'trace'; id: string | null; data: TraceEventData }
  | { event: 'approval'; id: string | null; data: ApprovalEventData }
  | { event: 'fault_rule'; id: string | null; data: FaultRuleEventData }
  | { event: 'reset'; id: string | null; data: unknown };

/** The error body of every API failure. */
export interface ApiErrorBody {
  error: { code: string; message: string; details?: unknown };
}
