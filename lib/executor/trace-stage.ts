import { executionMs } from './approval-wait';
import { boundError } from './bound-error';
import type { IdTable } from './id-table';
import type { LiveCall } from './live-call';
import { modelMessageContent } from './model-message';
import type { Normalized } from './normalize';
import type { Redactor } from './redact';
import { scrubError, scrubRecordErrors } from './scrub-errors';
import { roundMs, type StageRecorder } from './stage-recorder';
import type { CallStatus, ToolErrorData, ToolResult, TraceSink } from './types';

/** Ends a call: see `createTraceStage`. */
export type FinishCall = (
  live: LiveCall,
  stages: StageRecorder,
  t0: number,
  failure: ToolErrorData | undefined,
  normalized?: Normalized | null,
  fellBackTo?: string | null,
) => ToolResult | Promise<ToolResult>;

function statusFor(error: ToolErrorData | undefined): CallStatus {
  if (!error) return 'succeeded';
  if (error.code === 'CANCELLED') return 'cancelled';
  return error.kind === 'permission' ? 'denied' : 'failed';
}

/**
 * Stage 6, the trace: how every call ends, whatever happened. `calls` is the executor's
 * in-flight map, which the call leaves once its record is written.
 */
export function createTraceStage(deps: { sink: TraceSink; redactor: Redactor; calls: IdTable<LiveCall> }): FinishCall {
  const { sink, redactor, calls } = deps;

  /**
   * Finalizes the record whatever happened (skipped stages filled in, errors scrubbed
   * of secrets, the model message written), hands it to the sink, and only then lets the call
   * leave the in-flight map and resolves whoever waits on its cancellation.
   * Synchronous when the sink is: the hot path makes no promise.
   */
  function finish(
    live: LiveCall,
    stages: StageRecorder,
    t0: number,
    failure: ToolErrorData | undefined,
    normalized: Normalized | null = null,
    fellBackTo: string | null = null,
  ): ToolResult | Promise<ToolResult> {
    const { record } = live;
    stages.skipRest('trace');
    const traceStart = stages.lastAt;
    live.end();
    // Secrets must not reach the store or the model through an error message; nor megabytes of one.
    const error = failure && boundError(failure, (trimmed) => scrubError(trimmed, redactor, live.secrets));
    const ownSecrets = live.secrets.length > 0;
    if (error || ownSecrets || record.flags.retried || record.flags.fellBack) {
      scrubRecordErrors(record, redactor, live.secrets, ownSecrets);
    }
    record.status = statusFor(error);
    record.error = error ?? null;
    record.modelTruncation = error ? null : (normalized?.modelTruncation ?? null);
    const result: ToolResult = {
      toolCallId: record.toolCallId,
      traceId: record.id,
      tool: record.tool,
      status: record.status,
      success: !error,
      latencyMs: 0,
      metadata: {
        traceId: record.id,
        attempts: record.attempts.length,
        stderr: normalized?.stderr ?? null,
        exitCode: normalized?.exitCode ?? null,
        truncated: normalized?.truncated ?? false,
        parseFailed: normalized?.parseFailed ?? false,
        fellBackTo,
        faulted: record.flags.faulted,
      },
    };
    if (error) result.error = error;
    else result.output = normalized?.modelOutput ?? null;
    // Normalize already serialized what the model gets; serializing it again would cost as much.
    record.modelMessage = error || !normalized ? modelMessageContent(result) : normalized.modelText;
    stages.add('trace', traceStart, 'ok', live.begun ? 'finalized' : 'recorded');
    // One clock reading for both: the finish time is the start's epoch plus the monotonic time
    // from arrival to answer; the latency is that time less the wait for approval (execution only).
    const wallMs = Math.max(0, roundMs(stages.lastAt - t0));
    const latencyMs = record.approval ? executionMs(wallMs, record.approval, record.stages) : wallMs;
    record.latencyMs = latencyMs;
    result.latencyMs = latencyMs;
    record.finishedAt = record.createdAt + Math.round(wallMs);
    let pending: void | Promise<void> | undefined;
    try {
      pending = sink.finish(record);
    } catch (cause) {
      notRecorded(live, stages, cause);
    }
    if (!pending) return recorded(live, result);
    return Promise.resolve(pending).then(
      () => recorded(live, result),
      (cause: unknown) => {
        notRecorded(live, stages, cause);
        return recorded(live, result);
      },
    );
  }

  /** The record is written: the call leaves the in-flight map, and cancel callers get its result. */
  function recorded(live: LiveCall, result: ToolResult): ToolResult {
    if (calls.get(result.traceId) === live) calls.delete(result.traceId);
    live.settle(result);
    return result;
  }

  function notRecorded(live: LiveCall, stages: StageRecorder, cause: unknown): void {
    // The caller still gets its result; the failure to record is reported, not swallowed.
    console.error(`[toolscope] could not record trace ${live.record.id}:`, cause);
    stages.failLast(`could not record: ${String(cause)}`);
  }

  return finish;
}
