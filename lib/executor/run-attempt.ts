import { CallCancelled, type Cancellable, cancelledError } from './call-cancellation';
import type { Clock } from './clock';
import { classifyError, errorData } from './errors';
import { faultCaused, invokeWithFault, markInjected } from './fault-injection';
import { processFailure } from './process-failure';
import { isProcessOutput } from './process-output';
import type { AnyTool, AttemptFault, CancelReason, ToolContext, ToolErrorData, TraceContext } from './types';

export type AttemptResult =
  | { outcome: 'ok'; value: unknown }
  /** `value`: what a failed process returned (stdout, stderr, exit code), kept for the trace. */
  | { outcome: 'error'; error: ToolErrorData; value?: unknown }
  | { outcome: 'timeout'; error: ToolErrorData }
  | { outcome: 'cancelled'; error: ToolErrorData };

/**
 * What the tool receives. `signal` is a getter on the prototype, so the AbortController is
 * created only when a tool reads it (most fast tools never do) and creating the context costs
 * no closure: read `ctx.signal`, do not spread the context.
 */
class AttemptContext implements ToolContext {
  readonly traceId: string;
  readonly toolCallId: string;
  readonly sessionId: string | null;
  readonly actor: string;
  readonly attempt: number;
  readonly clock: Clock;
  readonly metadata: Record<string, unknown>;
  readonly output: ToolContext['output'];
  readonly traceContext: TraceContext | null;
  readonly permission: ToolContext['permission'];
  private controller: AbortController | undefined;
  private abortReason: unknown;

  constructor(ctx: Omit<ToolContext, 'signal'>) {
    this.traceId = ctx.traceId;
    this.toolCallId = ctx.toolCallId;
    this.sessionId = ctx.sessionId;
    this.actor = ctx.actor;
    this.attempt = ctx.attempt;
    this.clock = ctx.clock;
    this.metadata = ctx.metadata;
    this.output = ctx.output;
    this.traceContext = ctx.traceContext ?? null;
    this.permission = ctx.permission;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortReason !== undefined) this.controller.abort(this.abortReason);
    }
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    this.abortReason = reason;
    this.controller?.abort(reason);
  }
}

class AttemptTimeout extends Error {
  override readonly name = 'AttemptTimeout';
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/** What the tool returned, as an attempt result: a failed process is a failed attempt. */
function settled(value: unknown): AttemptResult {
  if (isProcessOutput(value)) {
    const failure = processFailure(value);
    if (failure) return { outcome: 'error', error: failure, value };
  }
  return { outcome: 'ok', value };
}

/** An attempt's result as recorded: a failure its fault caused says it was injected, and by which rule. */
function faulted(result: AttemptResult, fault: AttemptFault): AttemptResult {
  if (result.outcome !== 'error' && result.outcome !== 'timeout') return result;
  if (!faultCaused(fault, result.outcome)) return result;
  return { ...result, error: markInjected(result.error, fault) };
}

/**
 * Runs one attempt under its own deadline.
 * 1. The tool gets an AbortSignal that fires at the deadline or when the call is cancelled. It is
 *    created on first read: most fast tools never look at it, and signals are not free.
 * 2. A tool that answers synchronously is done, and so is the attempt: no timer is armed
 *    (nothing could have interrupted it) and no promise is made.
 * 3. At the deadline, or on cancellation, the attempt ends even if the tool ignores the signal.
 * 4. The timer and the cancel hook are always removed; a late settlement is ignored.
 * 5. An injected fault (`fault-injection.ts`) acts inside the attempt, under the same deadline
 *    and cancellation; only then is a promise made.
 */
export function runAttempt(
  tool: AnyTool,
  input: unknown,
  ctx: Omit<ToolContext, 'signal'>,
  options: { clock: Clock; cancellation: Cancellable; fault: AttemptFault | null },
): AttemptResult | Promise<AttemptResult> {
  const { clock, cancellation, fault } = options;
  if (cancellation.cancelReason) {
    return { outcome: 'cancelled', error: cancelledError(cancellation.cancelReason, 'execute') };
  }
  const toolCtx = new AttemptContext(ctx);

  let running: unknown;
  if (fault) {
    running = invokeWithFault(tool, input, toolCtx, clock, fault);
  } else {
    try {
      running = tool.execute(input, toolCtx);
    } catch (error) {
      return { outcome: 'error', error: classifyError(error) };
    }
    // Synchronous answers settle synchronously: the hot path of fast tools allocates no promise.
    if (!isThenable(running)) return settled(running);
  }

  return new Promise<AttemptResult>((resolve) => {
    let done = false;
    const settle = (result: AttemptResult) => {
      if (done) return;
      done = true;
      clock.clearTimeout(timer);
      cancellation.onCancel(null);
      resolve(fault ? faulted(result, fault) : result);
    };
    const abort = (reason: unknown) => toolCtx.abort(reason);
    const timer = clock.setTimeout(() => {
      abort(new AttemptTimeout(`${tool.name} timed out after ${tool.timeoutMs} ms`));
      settle({
        outcome: 'timeout',
        error: errorData('TIMEOUT', `${tool.name} timed out after ${tool.timeoutMs} ms.`, {
          details: { timeoutMs: tool.timeoutMs },
          stage: 'execute',
        }),
      });
    }, tool.timeoutMs);
    const onCancel = (reason: CancelReason) => {
      abort(new CallCancelled(reason));
      settle({ outcome: 'cancelled', error: cancelledError(reason, 'execute') });
    };
    // The tool may have had its own call cancelled while it started (synchronously).
    if (cancellation.cancelReason) onCancel(cancellation.cancelReason);
    else cancellation.onCancel(onCancel);
    (running as PromiseLike<unknown>).then(
      (value) => settle(settled(value)),
      (error: unknown) => settle({ outcome: 'error', error: classifyError(error) }),
    );
  });
}
