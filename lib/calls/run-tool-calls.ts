import { ApiError } from '../errors';
import type { Recording } from '../executor/recording';
import type { CallPrincipal, ExecutionContext, TraceContext } from '../executor/types';
import { openRecording } from '../replay/recordings';
import { isSessionTooLargeError } from '../replay/session-calls';
import type { Toolscope } from '../server/create-toolscope';
import { answerCalls, type CallAnswer } from './answer-calls';
import { recordAssistantMessage } from './assistant-message';
import { parseToolCallsBody } from './tool-calls-body';

/** An Anthropic `tool_result` block: the text of the OpenAI form's `role: "tool"` message, for a user turn. */
export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string;
  /** The call failed (a call still awaiting approval has not: it has not run yet). */
  is_error: boolean;
}

/** Where a batch of calls comes from, beside its body. */
export interface ToolCallsOrigin {
  /** Who sends the calls: the principal the HTTP layer verified. */
  principal?: CallPrincipal;
  /** Aborts the calls (the client went away). */
  signal?: AbortSignal;
  /** The request's W3C `traceparent`: parent of the calls' spans (`lib/otel`). */
  traceContext?: TraceContext | null;
}

/**
 * The tool-call service: a `POST /api/v1/tool-calls` body through the pipeline, answered with
 * the results and what to append to the conversation, both in input order — the `role: "tool"`
 * messages for OpenAI `tool_calls`, the `tool_result` blocks for Anthropic `tool_use` blocks.
 * 1. the body is read in either form (`parseToolCallsBody`): a malformed envelope is a 400,
 *    bad tool arguments are per-call results;
 * 2. with `replay_from`, the calls are served from that recorded session (recording mode);
 * 3. the batch's assistant message is stored once, under the batch's id;
 * 4. the calls run as one batch, and the answer waits for approvals as `answerCalls` says.
 */
export async function runToolCalls(ts: Toolscope, body: unknown, origin: ToolCallsOrigin = {}) {
  const { format, calls, options } = parseToolCallsBody(body, ts.config.limits.maxBatchSize);
  const { session_id, max_concurrency, fail_fast, wait, replay_from, on_miss, assistant_message } = options;
  const ctx: ExecutionContext = {
    sessionId: session_id ?? null,
    actor: 'api',
    principal: origin.principal ?? null,
    signal: origin.signal,
  };
  if (origin.traceContext) ctx.traceContext = origin.traceContext;
  if (replay_from !== undefined) {
    ctx.recording = recordingFor(ts, replay_from, on_miss ?? 'fail', ctx.sessionId ?? null);
  } else if (on_miss !== undefined) {
    throw new ApiError('INVALID_REQUEST', 'on_miss: goes with replay_from (recording mode); send both or neither.');
  }
  if (assistant_message !== undefined) recordAssistantMessage(assistant_message, ctx, ts.store, ts.config);
  const answers = await answerCalls(ts, { calls, ctx, maxConcurrency: max_concurrency, failFast: fail_fast, wait });
  const results = answers.map((answer) => answer.result);
  if (format === 'anthropic') return { results, tool_results: answers.map(toolResultBlock) };
  return { results, messages: answers.map((answer) => answer.message) };
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
function recordingFor(ts: Toolscope, replayFrom: string, onMiss: 'run' | 'fail', sessionId: string | null): Recording {
  let recording: Recording | null;
  try {
    recording = openRecording(ts.store, { replayFrom, onMiss, sessionId });
  } catch (error) {
    if (!isSessionTooLargeError(error)) throw error;
    throw new ApiError('INVALID_REQUEST', `replay_from: ${error.message}.`);
  }
  if (recording) return recording;
  throw new ApiError(
    'RECORDING_NOT_FOUND',
    `replay_from: the session "${replayFrom}" has no recorded calls to serve (no finished call with parseable arguments).`,
  );
}
