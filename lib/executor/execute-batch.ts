import { v7 as uuidv7 } from 'uuid';
import type { CancelReason, ExecutionContext, ToolCall, ToolResult } from './types';

export interface BatchOptions {
  /** Calls running at once (default 4). */
  maxConcurrency?: number;
  /** After the first failure, calls not yet started are cancelled. */
  failFast?: boolean;
  /** Told when call `index` is recorded as awaiting approval (its slot is then free). */
  onAwaitingApproval?: (index: number, traceId: string) => void;
  /** Told when call `index` has its result (before the whole batch has). */
  onSettled?: (index: number, result: ToolResult) => void;
}

/**
 * Runs calls with at most `maxConcurrency` at once; results in input order, one failure never
 * loses another's result. A pool of workers pulls the next call (a semaphore, not fixed chunks),
 * so a slow call never holds a slot idle, and a call waiting for approval holds none. Under fail-fast, calls not yet started when one fails
 * run with a signal aborted by `fail_fast`: they are recorded as CANCELLED, naming the call that
 * failed (its trace id, tool call id and tool) so the UI can link to it.
 */
export async function executeBatch(
  execute: (call: ToolCall, ctx: ExecutionContext) => Promise<ToolResult>,
  calls: readonly ToolCall[],
  batch: BatchOptions = {},
  ctx: ExecutionContext = {},
): Promise<ToolResult[]> {
  // One id for the calls of one request, so a session replay can run them together again.
  if (!ctx.batchId) ctx = { ...ctx, batchId: uuidv7() };
  // One call (what most agent requests are): nothing to schedule.
  if (calls.length === 1) {
    const only = batch.onAwaitingApproval;
    const hook = only
      ? (traceId: string) => {
          ctx.onAwaitingApproval?.(traceId);
          only(0, traceId);
        }
      : ctx.onAwaitingApproval;
    const result = await execute(calls[0] as ToolCall, { ...ctx, traceId: undefined, onAwaitingApproval: hook });
    batch.onSettled?.(0, result);
    return [result];
  }
  const limit = Math.max(1, Math.floor(batch.maxConcurrency ?? 4));
  const results = new Array<ToolResult>(calls.length);
  const waitingForApproval: Promise<void>[] = [];
  let cancelled: AbortSignal | null = null;
  let next = 0;
  const settle = (index: number, result: ToolResult) => {
    results[index] = result;
    batch.onSettled?.(index, result);
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
  };
  const worker = async () => {
    while (next < calls.length) {
      const index = next++;
      const call = calls[index] as ToolCall;
      // A call waiting for a person holds no slot: the worker goes on, the call settles later.
      let park: (() => void) | undefined;
      const parked = new Promise<'parked'>((resolve) => {
        park = () => resolve('parked');
      });
      const running = execute(call, {
        ...ctx,
        traceId: undefined,
        signal: batch.failFast && cancelled ? cancelled : ctx.signal,
        onAwaitingApproval: (traceId) => {
          ctx.onAwaitingApproval?.(traceId);
          batch.onAwaitingApproval?.(index, traceId);
          park?.();
        },
      });
      const first = await Promise.race([running, parked]);
      if (first === 'parked') waitingForApproval.push(running.then((result) => settle(index, result)));
      else settle(index, first);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, calls.length) }, worker));
  await Promise.all(waitingForApproval);
  return results;
}
