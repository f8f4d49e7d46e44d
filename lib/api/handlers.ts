import { z } from 'zod';
import { isInvalidCursorError, type StoredTrace } from '../db/trace-store';
import { boundText } from '../executor/bound-error';
import { type BatchOptions, executeBatch } from '../executor/execute-batch';
import { inputJsonSchema, toAnthropicTool, toOpenAITool } from '../executor/json-schema';
import { modelMessageContent } from '../executor/model-message';
import type { Recording } from '../executor/recording';
import type { ExecutionContext, ToolCall, ToolResult, TraceContext } from '../executor/types';
import { traceContextFromHeaders } from '../otel/trace-context';
import { openRecording } from '../replay/recordings';
import { isSessionTooLargeError } from '../replay/session-calls';
import type { Toolscope } from '../server/create-toolscope';
import { shellSandboxJson } from '../tools/process-sandbox';
import { assistantMessageField, assistantMessageOf, recordAssistantMessage } from './assistant-message';
import { apiError, handle, readJsonBody } from './http';
import { guardJsonBody } from './request-guard';
import { resultJson, summaryJson, traceJson } from './serialize';
import { toTraceQuery, traceFilterParams } from './trace-filter-query';

/** A zod error as one line for an API message: the first few issues, each with its path. */
export function zodMessage(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join('.') || 'body'}: ${i.message}`)
    .join('; ');
}

/**
 * A JSON object, passed on as parsed. Not `z.record`: it copies by assignment, which turns a
 * `__proto__` key into the copy's prototype — the key would vanish from the arguments (and from
 * the tool's validation) instead of being refused as the unknown field it is. And no copy is cheaper.
 */
const jsonObject = z.custom<Record<string, unknown>>(
  (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  { message: 'expected a JSON object' },
);

const openAIToolCall = z.object({
  id: z.string().min(1).max(256),
  type: z.literal('function').default('function'),
  function: z.object({
    name: z.string().max(256),
    // A JSON string as OpenAI sends it; an object is accepted too. Bad JSON is a per-call result.
    arguments: z.union([z.string(), jsonObject]).default('{}'),
  }),
});

/** An Anthropic `tool_use` block as a `Message`'s `content` holds it; its other fields (`caller`) are ignored. */
const anthropicToolUse = z.object({
  type: z.literal('tool_use'),
  id: z.string().min(1).max(256),
  name: z.string().max(256),
  input: jsonObject,
});

/** What both forms of the body take beside their calls. */
const batchFields = {
  session_id: z.string().min(1).max(256).optional(),
  max_concurrency: z.number().int().min(1).max(64).optional(),
  fail_fast: z.boolean().optional(),
  /** false: answer as soon as every call has finished or awaits approval. */
  wait: z.boolean().optional(),
  /** Recording mode: serve the calls from this recorded session instead of running them. */
  replay_from: z.string().min(1).max(256).optional(),
  /** What a call with no recording does: run for real, or fail with RECORDING_MISS (default). */
  on_miss: z.enum(['run', 'fail']).optional(),
  /** What the model said with these calls: stored once for the batch, shown on its traces. */
  assistant_message: assistantMessageField,
};

type BatchFields = { [K in keyof typeof batchFields]?: z.infer<(typeof batchFields)[K]> };

/** The body in OpenAI's form (`tool_calls`) and in Anthropic's (`tool_use` blocks). */
function toolCallsBody(maxBatch: number) {
  return {
    openai: z.object({ ...batchFields, tool_calls: z.array(openAIToolCall).min(1).max(maxBatch) }),
    anthropic: z.object({ ...batchFields, tool_use: z.array(anthropicToolUse).min(1).max(maxBatch) }),
  };
}

// Built once per batch limit (one per process in practice), not once per request.
const toolCallsBodies = new Map<number, ReturnType<typeof toolCallsBody>>();
function toolCallsBodyFor(maxBatch: number) {
  let schema = toolCallsBodies.get(maxBatch);
  if (!schema) {
    schema = toolCallsBody(maxBatch);
    toolCallsBodies.set(maxBatch, schema);
  }
  return schema;
}

/** An API answer as data, for the web `Response` of Next's routes and the agent path's Node response alike. */
export interface JsonAnswer {
  status: number;
  body: unknown;
}

const errorAnswer = (status: number, code: string, message: string): JsonAnswer => ({
  status,
  body: { error: { code, message: boundText(message) } },
});

/** A `POST /api/v1/tool-calls` body, either form, as the pipeline takes it. */
export interface ToolCallsRequest {
  /** Which form the calls came in, and so the form of the answer. */
  format: 'openai' | 'anthropic';
  calls: ToolCall[];
  /** The fields beside the calls. */
  options: BatchFields;
}

/**
 * Reads a `POST /api/v1/tool-calls` body in either form: OpenAI's `tool_calls` or Anthropic's
 * `tool_use` blocks, with the same other fields. Both, neither or a malformed call is the 400
 * naming the field. The OpenAI form, the hot path, pays one property lookup for the other.
 */
export function parseToolCallsBody(
  body: unknown,
  maxBatch: number,
): { ok: true; request: ToolCallsRequest } | { ok: false; answer: JsonAnswer } {
  const schemas = toolCallsBodyFor(maxBatch);
  const fields = body as { tool_use?: unknown; tool_calls?: unknown } | null | undefined;
  const tooMany = tooManyCalls(fields, maxBatch);
  if (tooMany) return { ok: false, answer: tooMany };
  if (fields != null && fields.tool_use !== undefined) {
    if (fields.tool_calls !== undefined) {
      const message =
        'tool_calls, tool_use: send the calls in one form, OpenAI tool_calls or Anthropic tool_use blocks, not both.';
      return { ok: false, answer: errorAnswer(400, 'INVALID_REQUEST', message) };
    }
    const parsed = schemas.anthropic.safeParse(body);
    if (!parsed.success) return { ok: false, answer: errorAnswer(400, 'INVALID_REQUEST', zodMessage(parsed.error)) };
    const calls = parsed.data.tool_use.map((block) => ({ id: block.id, name: block.name, arguments: block.input }));
    return { ok: true, request: { format: 'anthropic', calls, options: parsed.data } };
  }
  const parsed = schemas.openai.safeParse(body);
  if (!parsed.success) {
    const missing =
      fields != null && typeof fields === 'object' && !Array.isArray(fields) && fields.tool_calls === undefined;
    const message = missing
      ? 'tool_calls: missing; send the calls as OpenAI tool_calls, or as Anthropic blocks in tool_use.'
      : zodMessage(parsed.error);
    return { ok: false, answer: errorAnswer(400, 'INVALID_REQUEST', message) };
  }
  const calls = parsed.data.tool_calls.map((call) => ({
    id: call.id,
    name: call.function.name,
    arguments: call.function.arguments,
  }));
  // The parsed body itself (its calls too): no copy on the hot path.
  return { ok: true, request: { format: 'openai', calls, options: parsed.data } };
}

/** A batch over `limits.maxBatchSize`: the 400 naming the limit, before any call is looked at. */
function tooManyCalls(
  fields: { tool_use?: unknown; tool_calls?: unknown } | null | undefined,
  maxBatch: number,
): JsonAnswer | null {
  if (fields == null) return null;
  const key = fields.tool_use !== undefined ? 'tool_use' : 'tool_calls';
  const calls = fields[key];
  if (!Array.isArray(calls) || calls.length <= maxBatch) return null;
  return errorAnswer(
    400,
    'TOO_MANY_CALLS',
    `${key}: ${calls.length} calls in one request; at most ${maxBatch} (limits.maxBatchSize). Send them in several requests.`,
  );
}

/**
 * Runs the parsed JSON body of `POST /api/v1/tool-calls` through the pipeline: the results and
 * what to append to the conversation, both in input order — the `role: "tool"` messages for
 * OpenAI `tool_calls`, the `tool_result` blocks for Anthropic `tool_use` blocks. A malformed
 * envelope is a 400; bad tool arguments are per-call results. `signal` aborts the calls (the
 * client went away). With `replay_from`, the calls are served from that recorded session
 * (recording mode; see `openRecording`); without it, recording mode costs one check.
 * `traceContext`: the request's W3C `traceparent`, parent of the calls' spans (`lib/otel`).
 */
export async function runToolCalls(
  body: unknown,
  ts: Toolscope,
  signal?: AbortSignal,
  traceContext?: TraceContext | null,
): Promise<JsonAnswer> {
  const parsed = parseToolCallsBody(body, ts.config.limits.maxBatchSize);
  if (!parsed.ok) return parsed.answer;
  const { format, calls, options } = parsed.request;
  const { session_id, max_concurrency, fail_fast, wait, replay_from, on_miss, assistant_message } = options;
  const ctx: ExecutionContext = { sessionId: session_id ?? null, actor: 'api', signal };
  if (traceContext) ctx.traceContext = traceContext;
  if (replay_from !== undefined) {
    const recording = recordingFor(ts, replay_from, on_miss ?? 'fail', ctx.sessionId ?? null);
    if (!recording.ok) return recording.answer;
    ctx.recording = recording.recording;
  } else if (on_miss !== undefined) {
    return errorAnswer(
      400,
      'INVALID_REQUEST',
      'on_miss: goes with replay_from (recording mode); send both or neither.',
    );
  }
  if (assistant_message !== undefined) recordAssistantMessage(assistant_message, ctx, ts.store, ts.config);
  const answers = await answerCalls(ts, { calls, ctx, maxConcurrency: max_concurrency, failFast: fail_fast, wait });
  const results = answers.map((answer) => answer.result);
  if (format === 'anthropic') return { status: 200, body: { results, tool_results: answers.map(toolResultBlock) } };
  return { status: 200, body: { results, messages: answers.map((answer) => answer.message) } };
}

/** An Anthropic `tool_result` block: the text of the OpenAI form's `role: "tool"` message, for a user turn. */
export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string;
  /** The call failed (a call still awaiting approval has not: it has not run yet). */
  is_error: boolean;
}

function toolResultBlock(answer: CallAnswer): ToolResultBlock {
  return {
    type: 'tool_result',
    tool_use_id: answer.message.tool_call_id,
    content: answer.message.content,
    is_error: answer.result.success === false && answer.result.status !== 'awaiting_approval',
  };
}

/** The recording a request's calls are served from, or the 400 saying why there is none. */
function recordingFor(
  ts: Toolscope,
  replayFrom: string,
  onMiss: 'run' | 'fail',
  sessionId: string | null,
): { ok: true; recording: Recording } | { ok: false; answer: JsonAnswer } {
  try {
    const recording = openRecording(ts.store, { replayFrom, onMiss, sessionId });
    if (recording) return { ok: true, recording };
    const message = `replay_from: the session "${replayFrom}" has no recorded calls to serve (no finished call with parseable arguments).`;
    return { ok: false, answer: errorAnswer(400, 'RECORDING_NOT_FOUND', message) };
  } catch (error) {
    if (!isSessionTooLargeError(error)) throw error;
    return { ok: false, answer: errorAnswer(400, 'INVALID_REQUEST', `replay_from: ${error.message}.`) };
  }
}

/** A call's answer: its entry of `results`, and the `role: "tool"` message the model gets. */
export interface CallAnswer {
  result: Record<string, unknown>;
  message: { role: 'tool'; tool_call_id: string; content: string };
}

/** Calls to run as one batch (one request's), and how the request waits for them. */
export interface CallsRequest {
  calls: ToolCall[];
  /** Shared by every call (each gets a new trace id; the batch a new batch id). */
  ctx: ExecutionContext;
  /** Default 4. */
  maxConcurrency?: number;
  failFast?: boolean;
  /** false: answer as soon as every call has finished or awaits approval. */
  wait?: boolean;
  /** Runs one call: the executor's, unless the caller adds context per call (a session replay). */
  execute?: (call: ToolCall, ctx: ExecutionContext) => Promise<ToolResult>;
}

/**
 * Runs calls as one batch and answers each as `POST /api/v1/tool-calls` does, in input order:
 * finished calls with their result, calls still awaiting approval once the request stops waiting
 * (at once with `wait: false`, else after `approvals.waitMs`) as `awaiting_approval`, released to
 * go on when decided. Replay and session replay answer through it too.
 */
export async function answerCalls(ts: Toolscope, request: CallsRequest): Promise<CallAnswer[]> {
  const { calls } = request;
  const waiting = new ApprovalWait(calls.length, request.wait === false ? 0 : ts.config.approvals.waitMs);
  const options: BatchOptions = {
    maxConcurrency: request.maxConcurrency ?? 4,
    failFast: request.failFast ?? false,
    onAwaitingApproval: (index, traceId) => waiting.pending(index, traceId),
    onSettled: (index, result) => waiting.settled(index, result),
  };
  const batch = request.execute
    ? executeBatch(request.execute, calls, options, request.ctx)
    : ts.executor.executeBatch(calls, options, request.ctx);
  const first = await waiting.answer(batch);
  if (first !== 'now') return first.map(answerOf);
  return answeredWhilePending(
    batch,
    waiting,
    ts,
    calls.map((call) => call.id ?? ''),
  );
}

/** A finished call: its result, and the `role: "tool"` message the model gets. */
function answerOf(result: ToolResult): CallAnswer {
  return {
    result: resultJson(result) as Record<string, unknown>,
    message: { role: 'tool', tool_call_id: result.toolCallId, content: modelMessageContent(result) },
  };
}

/**
 * When a request that has calls awaiting approval is answered: once every call has finished or
 * waits, at once (`waitMs` 0, `"wait": false`) or after `waitMs` — the batch's own end answers
 * sooner when every call is decided in time. On the hot path (no call waits) it costs one promise:
 * the rest is made when a call first waits.
 */
class ApprovalWait {
  /** Results so far, by index; made at the first result. */
  results: (ToolResult | undefined)[] | null = null;
  /** Calls waiting for a person, by index; made when one first waits. */
  waitingIds: Map<number, string> | null = null;
  private done = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private answerNow: ((now: 'now') => void) | null = null;

  constructor(
    private readonly calls: number,
    private readonly waitMs: number,
  ) {}

  /** The batch's results, or `'now'` when the request is to be answered while calls still wait. */
  answer(batch: Promise<ToolResult[]>): Promise<ToolResult[] | 'now'> {
    return new Promise((resolve, reject) => {
      this.answerNow = resolve;
      batch.then(resolve, reject);
    });
  }

  pending(index: number, traceId: string): void {
    this.waitingIds ??= new Map();
    this.waitingIds.set(index, traceId);
    this.check();
  }

  settled(index: number, result: ToolResult): void {
    this.results ??= new Array(this.calls);
    this.results[index] = result;
    this.done++;
    this.waitingIds?.delete(index);
    if (this.done === this.calls) clearTimeout(this.timer);
    else this.check();
  }

  private check(): void {
    const waiting = this.waitingIds?.size ?? 0;
    if (waiting === 0 || this.done + waiting < this.calls) return;
    if (this.waitMs <= 0) this.answerNow?.('now');
    else this.timer ??= setTimeout(() => this.answerNow?.('now'), this.waitMs);
  }
}

/**
 * The answer while some calls still await approval: their callers are released (a closed
 * connection no longer cancels them) and they are reported `awaiting_approval`, with where their
 * outcome will be; the batch goes on without anyone waiting for it.
 */
function answeredWhilePending(
  batch: Promise<ToolResult[]>,
  waiting: ApprovalWait,
  ts: Toolscope,
  toolCallIds: string[],
): CallAnswer[] {
  batch.catch((error: unknown) => console.error('[toolscope] a batch answered while pending failed:', error));
  return Array.from({ length: toolCallIds.length }, (_, index) => {
    const result = waiting.results?.[index];
    if (result) return answerOf(result);
    const traceId = waiting.waitingIds?.get(index) ?? '';
    ts.executor.release(traceId);
    // The call's own record: it says what it waits for before the queue has listed it.
    const live = ts.executor.inFlight(traceId);
    // A call sent without an id got one generated with its trace.
    const toolCallId = toolCallIds[index] || live?.toolCallId || '';
    const tool = live?.tool ?? '';
    const expires = live?.approval?.expiresAt;
    const until = expires ? ` It expires at ${new Date(expires).toISOString()} if no one decides.` : '';
    return {
      result: {
        tool_call_id: toolCallId,
        trace_id: traceId,
        tool,
        status: 'awaiting_approval',
        success: false,
        output: null,
        error: null,
        latency_ms: null,
        attempts: 0,
        metadata: { trace_id: traceId, attempts: 0 },
      } as Record<string, unknown>,
      message: {
        role: 'tool',
        tool_call_id: toolCallId,
        content: `The call to ${tool} is waiting for a person to approve it, so it has not run yet.${until} Its outcome will be at GET /api/v1/traces/${traceId}.`,
      },
    };
  });
}

/**
 * `POST /api/v1/tool-calls` as a web handler (Next's route, `next dev`); `npm start` serves it
 * from the agent path (lib/agent-path) with the same guard and `runToolCalls`.
 */
export function postToolCalls(request: Request, ts: Toolscope): Promise<Response> {
  return handle(async () => {
    const json = guardJsonBody(request.headers.get('content-type'));
    if (!json.ok) return apiError(json.status, json.code, json.message);
    const body = await readJsonBody(request, ts.config.limits.maxBodyBytes);
    const trace = traceContextFromHeaders(request.headers.get('traceparent'), request.headers.get('tracestate'));
    const answer = await runToolCalls(body, ts, request.signal, trace);
    return Response.json(answer.body, { status: answer.status });
  });
}

/**
 * The trace as the API sends it: with the message its batch came with, its replays, and the
 * server's clock so that clients can compute elapsed time.
 */
function traceResponse(trace: StoredTrace, ts: Toolscope): Response {
  return Response.json(
    {
      ...traceJson(trace),
      assistant_message: assistantMessageOf(trace, ts.store),
      replays: ts.store.replays(trace.id),
      server_time: new Date().toISOString(),
    },
    { headers: { 'cache-control': 'no-store' } },
  );
}

/**
 * A running call's live snapshot from the executor (with its place in its session, which the
 * store gave it), else the recorded trace; null when unknown.
 */
function findTrace(id: string, ts: Toolscope): StoredTrace | null {
  if (id.length > 256) return null;
  const live = ts.executor.inFlight(id);
  if (!live) return ts.store.get(id);
  return live.sessionId === null ? live : { ...live, sessionSeq: ts.store.get(id)?.sessionSeq ?? null };
}

const notFound = (id: string) => apiError(404, 'NOT_FOUND', `No trace with id "${id.slice(0, 256)}".`);

/**
 * `GET /api/v1/traces/:id`: the whole redacted trace plus `server_time`. A call still running is
 * answered from the executor's live snapshot (the stage and attempt in progress, output so far).
 */
export function getTrace(id: string, ts: Toolscope): Promise<Response> {
  return handle(() => {
    const trace = findTrace(id, ts);
    return trace ? traceResponse(trace, ts) : notFound(id);
  });
}

const cancelBody = z
  .object({
    by: z.string().trim().min(1).max(64).optional(),
    reason: z.string().trim().min(1).max(1000).optional(),
  })
  .strict();

/**
 * `POST /api/v1/traces/:id/cancel` with an optional body `{ "by"?, "reason"? }` (`by` defaults
 * to `api`): aborts a running call through its AbortSignal and answers once the call has been
 * recorded as cancelled, with the trace. 404 for an unknown id, 409 NOT_RUNNING when it already
 * ended.
 */
export function cancelTrace(request: Request, id: string, ts: Toolscope): Promise<Response> {
  return handle(async () => {
    const raw = await readJsonBody(request, 16 * 1024, { emptyAs: null });
    // A body that is there must be sent as JSON, as every body that changes something here.
    const json = raw === null ? null : guardJsonBody(request.headers.get('content-type'));
    if (json && !json.ok) return apiError(json.status, json.code, json.message);
    const parsed = cancelBody.safeParse(raw ?? {});
    if (!parsed.success) return apiError(400, 'INVALID_REQUEST', zodMessage(parsed.error));
    const known = findTrace(id, ts);
    if (!known) return notFound(id);
    if (known.imported) return importedTraceError(id);
    const pending = ts.executor.cancel(id, { by: parsed.data.by ?? 'api', reason: parsed.data.reason });
    if (!pending) {
      return apiError(409, 'NOT_RUNNING', `The call ${id} is not running: it ended ${known.status}.`);
    }
    await pending;
    const trace = ts.store.get(id);
    if (!trace) return apiError(500, 'INTERNAL_ERROR', `The cancelled call ${id} was not recorded.`);
    return traceResponse(trace, ts);
  });
}

/** The 409 for an action on an imported trace: it is a record of another Toolscope's call, read-only. */
export function importedTraceError(id: string): Response {
  return apiError(
    409,
    'IMPORTED_TRACE',
    `The trace ${id} was imported: it is read-only here (it has no arguments to run again and nothing running to cancel).`,
  );
}

const listQuery = traceFilterParams.extend({
  limit: z.coerce.number().int().min(1).max(500).optional(),
  cursor: z
    .string()
    .max(256)
    .optional()
    .transform((v) => (v === '' ? undefined : v)),
});

/** `GET /api/v1/traces?tool=&status=&session=&q=&from=&to=&limit=&cursor=`: newest first, keyset-paginated. */
export function listTraces(request: Request, ts: Toolscope): Promise<Response> {
  return handle(() => {
    const params = Object.fromEntries(new URL(request.url).searchParams);
    const parsed = listQuery.safeParse(params);
    if (!parsed.success) return apiError(400, 'INVALID_QUERY', zodMessage(parsed.error));
    const q = parsed.data;
    try {
      const page = ts.store.list({ ...toTraceQuery(q), limit: q.limit, cursor: q.cursor });
      return Response.json({
        items: page.items.map(summaryJson),
        next_cursor: page.nextCursor,
        // The scan window ended before the page filled: older matches may follow next_cursor.
        partial: page.partial,
        // Exact when the store knows it without counting (no filter, or a tool filter alone), else null.
        total: page.total,
      });
    } catch (error) {
      if (isInvalidCursorError(error)) return apiError(400, 'INVALID_CURSOR', error.message);
      throw error;
    }
  });
}

/** `GET /api/v1/tools?format=openai|anthropic`: the registered tools. */
export function listTools(request: Request, ts: Toolscope): Promise<Response> {
  return handle(() => {
    const format = new URL(request.url).searchParams.get('format') ?? 'toolscope';
    const tools = ts.executor.registry.list();
    if (format === 'openai') return Response.json({ tools: tools.map(toOpenAITool) });
    if (format === 'anthropic') return Response.json({ tools: tools.map(toAnthropicTool) });
    if (format !== 'toolscope') {
      return apiError(
        400,
        'INVALID_QUERY',
        `format: must be "openai", "anthropic" or left out, not "${format.slice(0, 64)}".`,
      );
    }
    return Response.json({
      tools: tools.map((tool) => ({
        name: tool.name,
        description: tool.description,
        side_effect: tool.sideEffect,
        policy: ts.toolPolicy(tool.name, tool.sideEffect),
        timeout_ms: tool.timeoutMs,
        retry: {
          max_attempts: tool.retry.maxAttempts,
          base_delay_ms: tool.retry.baseDelayMs,
          max_delay_ms: tool.retry.maxDelayMs,
          factor: tool.retry.factor,
          jitter: tool.retry.jitter,
        },
        fallbacks: tool.fallbacks,
        circuit_state: ts.executor.circuitState(tool.name),
        input_schema: inputJsonSchema(tool),
      })),
      sandbox: shellSandboxJson(ts.shellSandbox),
    });
  });
}
