import type { z } from 'zod';
import type { CallDescriber } from './call-preview';
import type { Clock } from './clock';
import type { ErrorCode, ErrorKind } from './errors';
import type { JsonSchemaInput } from './json-schema-input';
import type { Recording } from './recording';

/** How much a tool can change the world; decides the default permission policy. */
export type SideEffect = 'none' | 'read' | 'write' | 'exec';

/** What the permission stage does with a call to a tool. */
export type Policy = 'allow' | 'ask' | 'deny';

export interface RetryPolicy {
  /** Attempts in all, the first one included (1 = no retry). */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  factor: number;
  /** 0 = exact exponential delays, 1 = "full jitter" (anywhere between 0 and the delay). */
  jitter: number;
}

export interface CircuitBreakerPolicy {
  /** Consecutive failed calls that open the circuit. */
  failureThreshold: number;
  /** How long the circuit stays open before one trial call is let through. */
  cooldownMs: number;
}

/** A tool call as a model sends it: OpenAI's shape, flattened. */
export interface ToolCall {
  /** The model's id for this call (`call_...`); generated when absent. */
  id?: string;
  name: string;
  /** A JSON string (OpenAI) or an already parsed object (Anthropic, MCP, the playground). */
  arguments: unknown;
}

/**
 * Who made a call, as its trace records it: the principal the HTTP layer verified (a key, the
 * token's admin, local mode's person). `actor` beside it is only a label the caller gives.
 */
export interface CallPrincipal {
  id: string;
  name: string;
  role: string;
}

/** What the caller knows about the call's surroundings. */
export interface ExecutionContext {
  traceId?: string;
  sessionId?: string | null;
  /** Who asked, as the caller labels it: `api`, `playground`, `mcp`, an agent name... */
  actor?: string;
  /** Who made the call, verified (the key it came with); absent for calls made by Toolscope itself. */
  principal?: CallPrincipal | null;
  signal?: AbortSignal;
  /**
   * `signal` aborts when the caller goes away (its connection closed), which decides nothing: a
   * call that has waited for a person is then released — it stays pending, or runs on once
   * approved, and its result is stored — instead of cancelled. Other calls are cancelled.
   */
  signalIsDisconnect?: boolean;
  /** Free-form data kept with the trace (client info...). */
  metadata?: Record<string, unknown>;
  /** The trace this call replays; the call is flagged `replayed` and the original lists it. */
  replayOf?: string;
  /** The calls of one request share a batch id (set by `executeBatch`). */
  batchId?: string;
  /**
   * A one-off fault for this call only (replay with fault), applied per attempt like a rule
   * that matches it with probability 1; recorded on its attempts with `ruleId: null`.
   */
  fault?: FaultSpec;
  /**
   * Recording mode: a call that matches a recorded one gets its result without anything running
   * (see `lib/executor/recording.ts`); a miss runs or fails as the recording says.
   */
  recording?: Recording;
  /**
   * Told once the call is recorded as `awaiting_approval` (before the approver is asked): a batch
   * frees its slot, an HTTP caller that does not wait answers.
   */
  onAwaitingApproval?: (traceId: string) => void;
  /**
   * Takes up a call a previous process left awaiting approval (`traceId` is its trace): it keeps
   * its creation time and its wait (requested and expiry times), and waits for a decision again.
   */
  resume?: { createdAt: number; approval: ApprovalRecord };
  /** The W3C trace context the request arrived with (`traceparent`): the call's span is its child. */
  traceContext?: TraceContext;
}

/** A W3C trace context (`traceparent` and `tracestate` headers), parsed: see `lib/otel/trace-context.ts`. */
export interface TraceContext {
  /** 32 lowercase hex digits, not all zero. */
  traceId: string;
  /** The parent span: 16 lowercase hex digits, not all zero. */
  spanId: string;
  /** The trace flags (bit 0: sampled). */
  flags: number;
  /** The vendor entries, passed on as received; null when none. */
  tracestate: string | null;
}

/** Where a tool reports output as it is produced (a child's stdout and stderr), for live views. */
export interface OutputReporter {
  /** Called with each decoded chunk, in order; the executor keeps it bounded (the trace's caps). */
  write(stream: 'stdout' | 'stderr', text: string): void;
  /**
   * Scrubs the call's secrets (and secret shapes) from a text, for what a tool keeps beyond the
   * call (an MCP server's stderr lines, shown with the server).
   */
  scrub?(text: string): string;
}

/**
 * A tool's own permission check refused the call (a program not on the shell allowlist, a host
 * not on the HTTP allowlist). The permission stage records it with the check's name.
 */
export interface PermissionRefusal {
  /** Which check refused, e.g. `shell allowlist`, `http allowlist`. */
  check: string;
  /** Written for the model and the person: what was refused and what is allowed, naming the config file. */
  message: string;
  hint?: string;
  details?: Record<string, unknown>;
}

/**
 * How a tool's calls are matched by the specifier of a permission rule, `tool(specifier)`.
 * Rules are compiled once (at start and when they change), calls are matched on the hot path:
 * `compile` does the parsing, the matcher it returns only compares.
 * @example
 * permissionSubject: {
 *   describe: 'the name, exactly',
 *   of: ({ name }) => name,
 *   exact: ({ name }) => name,
 *   compile: (specifier) => (subject) => subject === specifier,
 * }
 */
export interface PermissionSubject<I = unknown> {
  /** What a specifier names, for error messages and docs: `a path glob relative to the workspace`. */
  describe: string;
  /** The subject of one call, from its validated input: `notes/todo.md`, `git status`, `GET https://…`. */
  of(input: I): string;
  /**
   * Every subject of one call, for a tool whose call has several (each path an upstream MCP tool
   * takes): a deny or ask rule takes the call when any of them matches, an allow rule only when
   * all do (and there is at least one). Absent: the call's one subject is `of`'s.
   */
  each?(input: I): string[];
  /**
   * The specifier that matches exactly this call's subject and nothing else, its `*` and `\`
   * escaped: the literal path, the argv (quoted where needed), `METHOD URL` ("Always allow").
   * Absent: the tool offers none (an upstream tool, whose call may take several paths).
   */
  exact?(input: I): string;
  /**
   * Compiles a specifier into a matcher of one subject (`of`'s, or each of `each`'s), given with
   * the call's input for a subject that needs more than its text (`run_shell` matches the argv,
   * whose argument boundaries the text loses); throws an Error saying why a specifier is invalid.
   */
  compile(specifier: string): (subject: string, input: I) => boolean;
}

/** Why a call was cancelled: given to `executor.cancel` or as an AbortSignal's reason. */
export interface CancelReason {
  /** Who cancelled: `shutdown`, `fail_fast`, `mcp`, `client`, or the cancelling principal's name. */
  by: string;
  /** The principal who cancelled, verified from their key or login (a cancel through the API). */
  principal?: CallPrincipal;
  /** A sentence saying why, shown in the trace and to the model. */
  reason?: string;
  /** E.g. `{ failedTraceId, failedToolCallId }` for fail-fast. */
  details?: Record<string, unknown>;
}

/** What a tool's `execute` receives besides its input. */
export interface ToolContext {
  traceId: string;
  toolCallId: string;
  sessionId: string | null;
  actor: string;
  /** Fires when the attempt times out or the call is cancelled: stop the work. */
  signal: AbortSignal;
  /** 1-based attempt number. */
  attempt: number;
  clock: Clock;
  metadata: Record<string, unknown>;
  /** Report output as it is produced; live views stream it. Never throws. */
  output: OutputReporter;
  /** The trace context the call arrived with (`traceparent`), if any: tools that call out pass it on. */
  traceContext?: TraceContext | null;
  /**
   * How the permission rules judge this tool called with `input` instead, for this call's
   * session and principal: a tool checks a step the call takes on its own (a redirect's URL)
   * against the same rules as the call. Absent when the executor has no rules to ask.
   */
  permission?: (input: unknown) => { policy: Policy; rule: string };
}

export interface ToolDefinition<I = unknown, O = unknown> {
  name: string;
  description: string;
  /** zod for Toolscope's own tools; JSON Schema (`jsonSchemaInput`) for tools that come with one (MCP servers). */
  inputSchema: z.ZodType<I> | JsonSchemaInput<I>;
  /** Checked by the normalize stage; a mismatch fails with INVALID_OUTPUT. */
  outputSchema?: z.ZodType<O> | JsonSchemaInput<O>;
  /** The worst this tool can do; the default permission policy follows from it. */
  sideEffect: SideEffect;
  /** When the side effect depends on the input (an HTTP GET reads, a POST writes). */
  sideEffectOf?: (input: I) => SideEffect;
  /** Per attempt. */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  circuitBreaker?: CircuitBreakerPolicy | false;
  /**
   * What the tool's breaker is kept per, from the validated input: `http_request` gives the URL's
   * `host:port`, so one dead port does not block calls to a healthy host. Absent, or null for a
   * call: one breaker for the whole tool.
   */
  circuitKey?: (input: I) => string | null;
  /** Dotted paths into the input whose values are secrets (`headers.authorization`, `items.*.key`). */
  sensitivePaths?: string[];
  /** Tools tried, in order, once this one's retries are exhausted. */
  fallbacks?: string[];
  /** How many characters of the output the model receives before head-and-tail truncation. */
  maxModelOutputChars?: number;
  /**
   * The tool's own permission check on the validated input (shell allowlist, HTTP hosts, paths),
   * run by the permission stage: a refusal is recorded there, never at the execute stage.
   */
  checkPermission?: (input: I) => PermissionRefusal | null;
  /**
   * What a permission rule's specifier names for this tool (`write_file(notes/**)`,
   * `run_shell(git status)`): without it, the tool takes only tool-wide rules (`write_file`).
   */
  permissionSubject?: PermissionSubject<I>;
  /**
   * Where a call sends what it is given, from its validated input (`http_request`: the URL's
   * origin); null when it cannot be told. A replay with edited arguments puts a recorded secret
   * back only when the destination is unchanged. Absent: unknown, so such a replay may edit nothing
   * else (see `lib/replay/secret-destination.ts`).
   */
  destination?: (input: I) => string | null;
  /** How a person reads a call of this tool (lists, the approval card): see `call-preview.ts`. Absent: a generic form. */
  describe?: CallDescriber;
  /**
   * Arguments the schema does not name: `reject` (default) refuses them with INVALID_ARGUMENTS
   * naming each one, and the JSON Schema says `additionalProperties: false`; `ignore` drops them.
   */
  unknownArguments?: 'reject' | 'ignore';
  /**
   * Whether the tool can run now (a tool of an MCP server that is down cannot): the validate
   * stage fails a call to an unavailable tool with UPSTREAM_UNAVAILABLE, naming `reason`.
   * Absent: always available.
   */
  availability?: () => ToolAvailability;
  execute(input: I, ctx: ToolContext): Promise<O> | O;
}

/** Whether a tool can run now, and why not (a sentence naming the server and what happened to it). */
export interface ToolAvailability {
  available: boolean;
  reason: string | null;
}

/** A tool as the executor holds it: defaults filled in. */
export interface Tool<I = unknown, O = unknown> extends ToolDefinition<I, O> {
  timeoutMs: number;
  retry: RetryPolicy;
  circuitBreaker: CircuitBreakerPolicy | false;
  sensitivePaths: string[];
  fallbacks: string[];
}

/** Any tool, whatever its input and output types. */
// biome-ignore lint/suspicious/noExplicitAny: a registry holds tools of every input type.
export type AnyTool = Tool<any, any>;

export interface ToolErrorData {
  code: ErrorCode | (string & {});
  message: string;
  retryable: boolean;
  kind: ErrorKind;
  /** What the model should change; part of the message it receives. */
  hint?: string;
  details?: Record<string, unknown>;
  /** The stage that produced the error. */
  stage?: StageName;
}

export const CALL_STATUSES = [
  'running',
  'awaiting_approval',
  'succeeded',
  'failed',
  'denied',
  'cancelled',
  'interrupted',
] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];

export const STAGE_NAMES = ['parse', 'validate', 'permission', 'execute', 'normalize', 'trace'] as const;
export type StageName = (typeof STAGE_NAMES)[number];
/** `running`: the stage in progress while the call runs (its duration grows until it ends). */
export type StageStatus = 'ok' | 'failed' | 'skipped' | 'waiting' | 'running';

export interface TraceStage {
  name: StageName;
  status: StageStatus;
  /** Milliseconds from the start of the call. */
  startedAt: number;
  /** 0 while `running`: live views add the time elapsed since `startedAt`. */
  durationMs: number;
  detail: string | null;
}

/** What a fault does to an attempt, with its parameters (the API's `kind` and `params`, camelCased). */
export type FaultSpec =
  /** Added delay before the tool runs: `ms`, plus up to `jitterMs` more. */
  | { kind: 'latency'; ms: number; jitterMs?: number }
  /** The attempt hangs until its timeout fires. */
  | { kind: 'timeout' }
  | { kind: 'error'; code: string; message?: string; retryable?: boolean }
  /** The call's first `n` attempts fail with a retryable error; later ones run the tool. */
  | { kind: 'fail_first'; n: number }
  /** The tool runs; its output is replaced, cut short, or made invalid JSON. */
  | { kind: 'corrupt_output'; mode: 'replace' | 'truncate' | 'invalid_json'; value?: unknown }
  /** A process-like failure: exit code and stderr text. */
  | { kind: 'exit_code'; code: number; stderr?: string }
  /** A retryable 429-like error whose Retry-After the backoff honours. */
  | { kind: 'rate_limit'; retryAfterMs: number };
export type FaultKind = FaultSpec['kind'];

/**
 * A fault as injected into one attempt: the rule that fired (null for a one-off fault given with
 * the call) and what it did, e.g. `{ ruleId, ruleName, kind: 'latency', ms: 130, jitterMs: 50 }`
 * where `ms` is the delay actually added.
 */
export type AttemptFault = FaultSpec & { ruleId: string | null; ruleName?: string };

/** `running`: the attempt in progress; `cancelled`: stopped by a cancellation, not by the tool. */
export type AttemptOutcome = 'ok' | 'error' | 'timeout' | 'cancelled' | 'running';

export interface Attempt {
  number: number;
  /** The tool that ran: the called one, or a fallback. */
  tool: string;
  fallback: boolean;
  /** Milliseconds from the start of the call. */
  startedAt: number;
  /** 0 while `running`. */
  durationMs: number;
  outcome: AttemptOutcome;
  /** The attempt's deadline (ms after its start); absent in records written before it was kept. */
  timeoutMs?: number;
  error: ToolErrorData | null;
  /** Wait before the next attempt; null for the last one. */
  backoffMs: number | null;
  /** Why the wait is what it is when not the retry policy's own: `Retry-After 2 s`. Absent otherwise. */
  backoffReason?: string;
  /** The fault injected into this attempt, if any: the rule that fired it (null for a one-off fault) and what it did. */
  fault: AttemptFault | null;
}

export interface ResultMetadata {
  traceId: string;
  attempts: number;
  stderr: string | null;
  exitCode: number | null;
  truncated: boolean;
  parseFailed: boolean;
  fellBackTo: string | null;
  faulted: boolean;
}

/**
 * The one shape every call ends in. `success` is true exactly when `error` is absent;
 * `output` is what the model receives (truncated when large).
 */
export interface ToolResult {
  toolCallId: string;
  traceId: string;
  tool: string;
  status: CallStatus;
  success: boolean;
  output?: unknown;
  error?: ToolErrorData;
  latencyMs: number;
  metadata: ResultMetadata;
}

export interface TraceFlags {
  retried: boolean;
  fellBack: boolean;
  truncated: boolean;
  faulted: boolean;
  replayed: boolean;
}

/** How much of the output the model received when it was cut head-and-tail. */
export interface ModelTruncation {
  /** Characters of the start of the serialized output the model got. */
  headChars: number;
  /** Characters of the end of the serialized output the model got. */
  tailChars: number;
  /** Characters of the serialized output in all (before any cut). */
  totalChars: number;
}

/** How a call that needed approval was decided: the trace's audit of it. */
export interface ApprovalRecord {
  /** The rule or default that asked for approval (`ask run_shell(npm *)`, `default for write: ask`). */
  rule: string;
  /** Epoch ms: when the call started waiting. */
  requestedAt: number;
  /** Epoch ms: when the wait ends with APPROVAL_TIMEOUT; null when it never does. */
  expiresAt: number | null;
  /** Null while the call waits. */
  decision: 'approved' | 'denied' | 'expired' | 'cancelled' | null;
  /** Who decided (the principal's name), or who cancelled. */
  by: string | null;
  /** The principal who decided, verified from their key or login; absent on records made before principals. */
  decidedBy?: CallPrincipal | null;
  /** Epoch ms. */
  decidedAt: number | null;
  /** The reason given with a denial (it reaches the model) or an approval. */
  reason: string | null;
  /** A rule the decision created ("always allow"), as written on the Policy page. */
  ruleCreated: string | null;
}

/** Everything recorded about one call; what a trace sink persists. */
export interface TraceRecord {
  id: string;
  toolCallId: string;
  sessionId: string | null;
  actor: string;
  /** Who made the call (verified); null for calls recorded before principals existed. */
  principal: CallPrincipal | null;
  tool: string;
  status: CallStatus;
  sideEffect: SideEffect | null;
  /** Redacted: safe to store and show. A string when the arguments could not be parsed. */
  arguments: unknown;
  /**
   * The arguments exactly as received, for replay. Sinks that persist must seal them
   * (never store plaintext); they never leave in exports or API responses.
   */
  rawArguments: string;
  /**
   * Redacted: the arguments an approver edited, which are what ran (`arguments` keeps what the
   * model sent). Null when the call ran as sent.
   */
  editedArguments: unknown;
  /** The edited arguments exactly as given, sealed at rest like `rawArguments`; null without edits. */
  rawEditedArguments: string | null;
  /** Set once the call waited for approval; null for calls that never did. */
  approval: ApprovalRecord | null;
  /** The trace this call replays; null for an original call. */
  replayOf: string | null;
  /** Shared by the calls of one request (one batch); null for a call made alone (the playground). */
  batchId: string | null;
  /** The recorded call whose result this call was served from (recording mode); null when the tool ran. */
  servedFrom: string | null;
  /** Wall-clock epoch milliseconds. */
  createdAt: number;
  finishedAt: number | null;
  latencyMs: number | null;
  stages: TraceStage[];
  attempts: Attempt[];
  /** The full (redacted, capped) output; the model may have received a truncated form. */
  output: unknown;
  stdout: string | null;
  stderr: string | null;
  exitCode: number | null;
  error: ToolErrorData | null;
  modelMessage: string | null;
  /** Set when the model received only the head and tail of the output. */
  modelTruncation: ModelTruncation | null;
  flags: TraceFlags;
  metadata: Record<string, unknown>;
  /**
   * The trace context the call arrived with, for exporters (not stored): absent when none.
   * A call taken up after a restart has lost it.
   */
  traceContext?: TraceContext;
}

/**
 * Where traces go. `begin` is called before any side effect may run and must be durable when it
 * returns; `finish` is called once with the final record and must upsert (rejected calls skip
 * `begin`). Synchronous sinks may return void.
 */
export interface TraceSink {
  begin(record: TraceRecord): void | Promise<void>;
  update(record: TraceRecord): void | Promise<void>;
  finish(record: TraceRecord): void | Promise<void>;
  /**
   * Optional, not durable: the running call changed (a stage or an attempt started or ended,
   * output arrived). Throttled by the executor; live views listen, stores ignore it.
   */
  progress?(record: TraceRecord): void;
  /**
   * Optional, not durable: the call entered a stage that may take time (execute, a wait for
   * approval), or one of its attempts ended. `record` is the live one: read it now, keep nothing.
   */
  step?(record: TraceRecord, step: TraceStep): void;
}

/** What `TraceSink.step` reports. */
export type TraceStep = { type: 'stage'; stage: StageName } | { type: 'attempt'; attempt: number };
