import type { CancelReason, ExecutionContext, ToolCall, ToolResult } from './types';

export interface BatchOptions {
  /** Calls running at once (default 4). */
  maxConcurrency?: number;
  /** After the first failure, calls not yet started are cancelled. */
  failFast?: boolean;
}

/**
 * Runs calls with at most `maxConcurrency` at once; results in input order, one failure never
 * loses another's result. A pool of workers pulls the next call (a semaphore, not fixed chunks),
 * so a slow call never holds a slot idle. Under fail-fast, calls not yet started when one fails
 * run with a signal aborted by `fail_fast`: they are recorded as CANCELLED, naming the call that
 * failed (its trace id, tool call id and tool) so the UI can link to it.
 */
export async function executeBatch(
  execute: (call: ToolCall, ctx: ExecutionContext) => Promise<ToolResult>,
  calls: readonly ToolCall[],
  batch: BatchOptions = {},
  ctx: ExecutionContext = {},
): Promise<ToolResult[]> {
  const limit = Math.max(1, Math.floor(batch.maxConcurrency ?? 4));
  const results = new Array<ToolResult>(calls.length);
  let cancelled: AbortSignal | null = null;
  let next = 0;
  const worker = async () => {
    while (next < calls.length) {
      const index = next++;
      const call = calls[index] as ToolCall;
      const result = await execute(call, {
        ...ctx,
        traceId: undefined,
        signal: batch.failFast && cancelled ? cancelled : ctx.signal,
      });
      results[index] = result;
      if (!result.success && batch.failFast && !cancelled) {
        const reason: CancelReason = {
          by: 'fail_fast',
          reason: 'another call in the same batch failed',
          details: { failedTraceId: result.traceId, failedToolCallId: result.toolCallId, failedTool: result.tool },
        };
        const controller = new AbortController();
        controller.abort(reason);
        cancelled = controller.signal;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, calls.length) }, worker));
  return results;
}
