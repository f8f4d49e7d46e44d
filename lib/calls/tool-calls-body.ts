import { z } from 'zod';
import { ApiError, zodMessage } from '../errors';
import type { ToolCall } from '../executor/types';
import { assistantMessageField } from './assistant-message';

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

export type BatchFields = { [K in keyof typeof batchFields]?: z.infer<(typeof batchFields)[K]> };

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
 * naming the field (thrown). The OpenAI form, the hot path, pays one property lookup for the other.
 */
export function parseToolCallsBody(body: unknown, maxBatch: number): ToolCallsRequest {
  const schemas = toolCallsBodyFor(maxBatch);
  const fields = body as { tool_use?: unknown; tool_calls?: unknown } | null | undefined;
  checkBatchSize(fields, maxBatch);
  if (fields != null && fields.tool_use !== undefined) {
    if (fields.tool_calls !== undefined) {
      throw new ApiError(
        'INVALID_REQUEST',
        'tool_calls, tool_use: send the calls in one form, OpenAI tool_calls or Anthropic tool_use blocks, not both.',
      );
    }
    const parsed = schemas.anthropic.safeParse(body);
    if (!parsed.success) throw new ApiError('INVALID_REQUEST', zodMessage(parsed.error));
    const calls = parsed.data.tool_use.map((block) => ({ id: block.id, name: block.name, arguments: block.input }));
    return { format: 'anthropic', calls, options: parsed.data };
  }
  const parsed = schemas.openai.safeParse(body);
  if (!parsed.success) {
    const missing =
      fields != null && typeof fields === 'object' && !Array.isArray(fields) && fields.tool_calls === undefined;
    throw new ApiError(
      'INVALID_REQUEST',
      missing
        ? 'tool_calls: missing; send the calls as OpenAI tool_calls, or as Anthropic blocks in tool_use.'
        : zodMessage(parsed.error),
    );
  }
  const calls = parsed.data.tool_calls.map((call) => ({
    id: call.id,
    name: call.function.name,
    arguments: call.function.arguments,
  }));
  // The parsed body itself (its calls too): no copy on the hot path.
  return { format: 'openai', calls, options: parsed.data };
}

/** A batch over `limits.maxBatchSize`: the 400 naming the limit, before any call is looked at. */
function checkBatchSize(fields: { tool_use?: unknown; tool_calls?: unknown } | null | undefined, maxBatch: number) {
  if (fields == null) return;
  const key = fields.tool_use !== undefined ? 'tool_use' : 'tool_calls';
  const calls = fields[key];
  if (!Array.isArray(calls) || calls.length <= maxBatch) return;
  throw new ApiError(
    'TOO_MANY_CALLS',
    `${key}: ${calls.length} calls in one request; at most ${maxBatch} (limits.maxBatchSize). Send them in several requests.`,
  );
}
