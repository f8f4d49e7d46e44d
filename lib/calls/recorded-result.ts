import type { StoredTrace } from '../db/trace-store';
import { errorData } from '../executor/errors';
import type { CallStatus, ToolResult } from '../executor/types';

const UNFINISHED: ReadonlySet<CallStatus> = new Set(['running', 'awaiting_approval']);

/** Whether a recorded call has ended (nothing will write to it again but a replay). */
export function hasFinished(trace: Pick<StoredTrace, 'status'>): boolean {
  return !UNFINISHED.has(trace.status);
}

/**
 * A finished call's result as its trace records it, for a request that repeats it: the output the
 * model got (the recorded head-and-tail text when it was cut), or the error.
 */
export function recordedResult(trace: StoredTrace): ToolResult {
  const error = trace.error ?? undefined;
  const success = trace.status === 'succeeded' && !error;
  const last = trace.attempts[trace.attempts.length - 1];
  const result: ToolResult = {
    toolCallId: trace.toolCallId,
    traceId: trace.id,
    tool: trace.tool,
    status: trace.status,
    success,
    latencyMs: trace.latencyMs ?? 0,
    metadata: {
      traceId: trace.id,
      attempts: trace.attempts.length,
      stderr: trace.stderr,
      exitCode: trace.exitCode,
      truncated: trace.flags.truncated,
      parseFailed: false,
      fellBackTo: trace.flags.fellBack && last?.fallback ? last.tool : null,
      faulted: trace.flags.faulted,
    },
  };
  if (success) result.output = trace.modelTruncation ? trace.modelMessage : trace.output;
  else result.error = error ?? errorData('INTERNAL_ERROR', `The call ended ${trace.status} with no error recorded.`);
  return result;
}
