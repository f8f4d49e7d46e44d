import { errorData } from './errors';
import type { CancelReason, StageName, ToolErrorData } from './types';

/** What a cancellation must interrupt right now: the attempt, the backoff wait or the approval. */
export type CancelHook = (reason: CancelReason) => void;

/**
 * The cancellation state of one call, read by the stages that wait. At most one thing waits at
 * a time, so one hook slot is enough (and costs nothing on calls that are never cancelled).
 */
export interface Cancellable {
  readonly cancelReason: CancelReason | null;
  /** Sets (or clears, with null) what to interrupt when the call is cancelled. */
  onCancel(hook: CancelHook | null): void;
}

/** The reason an AbortSignal fires with when a call is cancelled: tools may rethrow it. */
export class CallCancelled extends Error {
  override readonly name = 'CallCancelled';
  readonly cancel: CancelReason;

  constructor(reason: CancelReason) {
    super(describeCancel(reason));
    this.cancel = reason;
  }
}

/**
 * Reads a cancel reason from an AbortSignal's reason: a CancelReason as is (executeBatch, the
 * server), a CallCancelled's, or `{ by: 'caller' }` for a plain abort.
 */
export function cancelReasonOf(signalReason: unknown): CancelReason {
  // By name, not instanceof: the production build can hold a copy of the class per chunk.
  const cancelled = signalReason as Partial<CallCancelled> | null;
  if (cancelled?.name === 'CallCancelled' && typeof cancelled.cancel === 'object') return cancelled.cancel;
  if (typeof signalReason === 'object' && signalReason !== null) {
    const { by, reason, details, principal } = signalReason as Partial<CancelReason>;
    if (typeof by === 'string' && by) {
      const out: CancelReason = { by };
      if (typeof reason === 'string' && reason) out.reason = reason;
      if (details && typeof details === 'object') out.details = details;
      if (principal && typeof principal === 'object') out.principal = principal;
      return out;
    }
  }
  return { by: 'caller' };
}

function describeCancel(reason: CancelReason): string {
  const details = reason.details ?? {};
  if (reason.by === 'fail_fast' && typeof details.failedToolCallId === 'string') {
    const tool = typeof details.failedTool === 'string' ? ` (${details.failedTool})` : '';
    return `Cancelled because call ${details.failedToolCallId}${tool} of the same batch failed.`;
  }
  return `Cancelled by ${reason.by}${reason.reason ? `: ${stripPeriod(reason.reason)}` : ''}.`;
}

function stripPeriod(text: string): string {
  return text.endsWith('.') ? text.slice(0, -1) : text;
}

/**
 * The CANCELLED error of a call: says who cancelled and why; `stage` is the stage it was in,
 * absent when it was cancelled before any stage ran (its stages are all skipped).
 */
export function cancelledError(reason: CancelReason, stage?: StageName): ToolErrorData {
  return errorData('CANCELLED', describeCancel(reason), {
    details: {
      ...reason.details,
      cancelledBy: reason.by,
      ...(reason.principal ? { cancelledByPrincipal: reason.principal } : {}),
      ...(reason.reason ? { reason: reason.reason } : {}),
    },
    ...(stage ? { stage } : {}),
  });
}
