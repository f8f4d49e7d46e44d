import type { ExecutionContext, ToolCall, ToolResult } from './types';

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
 * run with an aborted signal: they are recorded as CANCELLED.
 */
export async function executeBatch(
  execute: (call: ToolCall, ctx: ExecutionContext) => Promise<ToolResult>,
  calls: readonly ToolCall[],
  batch: BatchOptions = {},
  ctx: ExecutionContext = {},
): Promise<ToolResult[]> {
  const limit = Math.max(1, Math.floor(batch.maxConcurrency ?? 4));
  const results = new Array<ToolResult>(calls.length);
  const cancelled = new AbortController();
  cancelled.abort(new Error('fail-fast: an earlier call in the batch failed'));
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (next < calls.length) {
      const index = next++;
      const call = calls[index] as ToolCall;
      const skip = batch.failFast && failed;
      const result = await execute(call, {
        ...ctx,
        traceId: undefined,
        signal: skip ? cancelled.signal : ctx.signal,
      });
      results[index] = result;
      if (!result.success) failed = true;
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, calls.length) }, worker));
  return results;
}
