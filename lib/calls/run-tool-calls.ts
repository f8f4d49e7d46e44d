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
  /** The call failed (a call still awaiting approval, or approved and running, has not). */
  is_error: boolean;
}

/** Where a batch of calls comes from, beside its body. */
export interface ToolCallsOrigin {
  /** Who sends the calls: the principal the HTTP layer verified. */
  principal?: CallPrincipal;
  /**
   * Aborts when the client goes away: its calls are cancelled, but those that have waited for a
   * person, which are released (they stay pending, or run on once approved).
   */
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
 * 3. with a `session_id` (and no `replay_from`), at most once per tool call id: a call repeating
 *    one of the same principal and session is answered from it (`planCalls`), so an agent whose
 *    client timed out simply sends the request again;
 * 4. the batch's assistant message is stored once, under the batch's id, when any call runs;
 * 5. the calls run as one batch, and the answer waits for approvals as `answerCalls` says.
 */
export async function runToolCalls(ts: Toolscope, body: unknown, origin: ToolCallsOrigin = {}) {
  const { format, calls, options } = parseToolCallsBody(body, ts.config.limits.maxBatchSize);
  // A store that cannot record the calls refuses the whole request before anything runs (503).
  ts.store.admit();
  const { session_id, max_concurrency, fail_fast, wait, replay_from, on_miss, assistant_message } = options;
  const ctx: ExecutionContext = {
    sessionId: session_id ?? null,
    actor: 'api',
    principal: origin.principal ?? null,
    signal: origin.signal,
    signalIsDisconnect: true,
  };
  if (origin.traceContext) ctx.traceContext = origin.traceContext;
  if (replay_from !== undefined) {
    ctx.recording = recordingFor(ts, replay_from, on_miss ?? 'fail', ctx.sessionId ?? null);
  } else if (on_miss !== undefined) {
    throw new ApiError('INVALID_REQUEST', 'on_miss: goes with replay_from (recording mode); send both or neither.');
  }
  const answers = await answerCalls(ts, {
    calls,
    ctx,
    maxConcurrency: max_concurrency,
    failFast: fail_fast,
    wait,
    once: ctx.recording === undefined,
    beforeRun: () => {
      if (assistant_message !== undefined) recordAssistantMessage(assistant_message, ctx, ts.store, ts.config);
    },
  });
  const results = answers.map((answer) => answer.result);
  if (format === 'anthropic') return { results, tool_results: answers.map(toolResultBlock) };
  return { results, messages: answers.map((answer) => answer.message) };
}

/** Statuses of a call the answer came before the end of: not failed (yet). */
const NOT_RUN_YET: ReadonlySet<string> = new Set(['awaiting_approval', 'running']);

function toolResultBlock(answer: CallAnswer): ToolResultBlock {
  return {
    type: 'tool_result',
    tool_use_id: answer.message.tool_call_id,
    content: answer.message.content,
    is_error: answer.result.success === false && !NOT_RUN_YET.has(answer.result.status as string),
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
