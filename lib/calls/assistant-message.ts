import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import type { Config } from '../config';
import type { AssistantMessage, StoredTrace, TraceStore } from '../db/trace-store';
import type { ExecutionContext } from '../executor/types';
import { serverRedactor } from '../server/server-redactor';

/** The most of an assistant message's text that is stored (UTF-8 bytes); the rest is cut off. */
export const ASSISTANT_TEXT_MAX_BYTES = 16 * 1024;
/** The longest model name taken; a longer one is a 400. */
export const ASSISTANT_MODEL_MAX_CHARS = 200;

/**
 * `assistant_message` on `POST /api/v1/tool-calls`: the assistant turn whose tool calls these are,
 * `{ "text"?, "model"? }`; a bare string is the text, null is no message. Unknown keys are refused
 * (a 400 naming them), so an OpenAI message pasted as is (`content`) is not silently dropped.
 */
export const assistantMessageField = z
  .preprocess(
    (value) => (typeof value === 'string' ? { text: value } : value === null ? {} : value),
    z
      .object({
        text: z.string().nullable().optional(),
        model: z.string().max(ASSISTANT_MODEL_MAX_CHARS).nullable().optional(),
      })
      .strict(),
  )
  .optional();

export type AssistantMessageInput = z.infer<typeof assistantMessageField>;

/** The JSON form on a trace (`GET /api/v1/traces/:id`) and in exports. */
export interface AssistantMessageJson {
  text: string | null;
  model: string | null;
  truncated: boolean;
}

/** `text` cut to at most `maxBytes` of UTF-8, never inside a character. */
export function cutUtf8(text: string, maxBytes: number): { text: string; cut: boolean } {
  // Each UTF-16 unit is at most 3 bytes: shorter texts cannot be over.
  if (text.length * 3 <= maxBytes || Buffer.byteLength(text, 'utf8') <= maxBytes) return { text, cut: false };
  const bytes = Buffer.from(text, 'utf8');
  let end = maxBytes;
  // Back up to the start of a character (continuation bytes are 10xxxxxx).
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return { text: bytes.subarray(0, end).toString('utf8'), cut: true };
}

/**
 * The message as stored: secrets scrubbed from the text and the model name as from any stored
 * text, then the text bounded (redacted first, so a cut never leaves half a secret to be missed).
 * Null when there is nothing to store.
 */
export function storedAssistantMessage(input: AssistantMessageInput, config: Config): AssistantMessage | null {
  if (!input) return null;
  const rawText = input.text ?? null;
  const rawModel = input.model ?? null;
  if ((rawText === null || rawText === '') && (rawModel === null || rawModel === '')) return null;
  const redactor = serverRedactor(config);
  const bounded = rawText === null ? null : cutUtf8(redactor.scrubText(rawText), ASSISTANT_TEXT_MAX_BYTES);
  return {
    text: bounded?.text ?? null,
    model: rawModel === null || rawModel === '' ? null : redactor.scrubText(rawModel),
    truncated: bounded?.cut ?? false,
  };
}

/**
 * Stores a request's message under a new batch id and gives the calls that id (`ctx.batchId`),
 * so every trace of the request finds it. A request without one costs nothing here.
 */
export function recordAssistantMessage(
  input: AssistantMessageInput,
  ctx: ExecutionContext,
  store: TraceStore,
  config: Config,
  now = Date.now(),
): void {
  const message = storedAssistantMessage(input, config);
  if (!message) return;
  const batchId = uuidv7();
  store.saveAssistantMessage({ batchId, sessionId: ctx.sessionId ?? null, createdAt: now, message });
  ctx.batchId = batchId;
}

/**
 * The messages of many calls' batches at once, by batch id (batches without one are left out):
 * for views of a whole session, where each batch's header shows what the model said.
 */
export function assistantMessagesByBatch(
  batchIds: readonly (string | null)[],
  store: TraceStore,
): Record<string, AssistantMessageJson> {
  const ids = batchIds.filter((id): id is string => id !== null);
  if (ids.length === 0) return {};
  return Object.fromEntries(store.assistantMessages(ids));
}

/** The message of a trace's batch as the trace JSON carries it; null when it came with none. */
export function assistantMessageOf(
  trace: Pick<StoredTrace, 'batchId'>,
  store: TraceStore,
): AssistantMessageJson | null {
  if (trace.batchId === null) return null;
  return store.assistantMessages([trace.batchId]).get(trace.batchId) ?? null;
}
