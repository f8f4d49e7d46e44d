import { type Clock, sleep } from './clock';
import { classifyError, errorData, ToolError } from './errors';
import type { Fault } from './ports';
import type { AnyTool, AttemptOutcome, ToolContext, ToolErrorData } from './types';

export type AttemptResult =
  | { outcome: 'ok'; value: unknown }
  | { outcome: Exclude<AttemptOutcome, 'ok'>; error: ToolErrorData; cancelled: boolean };

class AttemptTimeout extends Error {
  override readonly name = 'AttemptTimeout';
}

/** Runs the fault (if any), then the tool. Async so synchronous throws become rejections. */
async function invoke(tool: AnyTool, input: unknown, ctx: ToolContext, clock: Clock, fault: Fault | null) {
  if (fault?.type === 'latency') await sleep(clock, fault.ms, ctx.signal);
  if (fault?.type === 'error') {
    throw new ToolError({
      code: fault.code ?? 'INJECTED_FAULT',
      message: fault.message ?? 'Injected fault',
      kind: fault.retryable === false ? 'business' : 'temporary',
      retryable: fault.retryable ?? true,
    });
  }
  if (fault?.type === 'timeout') await new Promise(() => {}); // hangs until the deadline aborts it
  if (fault?.type === 'garbage') return fault.output;
  return tool.execute(input, ctx);
}

/**
 * Runs one attempt under its own deadline.
 * 1. The tool gets an AbortSignal that fires at the deadline or when the caller cancels. It is
 *    created on first read: most fast tools never look at it, and signals are not free.
 * 2. At the deadline the attempt ends, even if the tool ignores the signal.
 * 3. The timer and the caller-signal listener are always removed; a late settlement is ignored.
 */
export function runAttempt(
  tool: AnyTool,
  input: unknown,
  ctx: Omit<ToolContext, 'signal'>,
  options: { clock: Clock; parentSignal: AbortSignal | undefined; fault: Fault | null },
): Promise<AttemptResult> {
  const { clock, parentSignal, fault } = options;
  return new Promise<AttemptResult>((resolve) => {
    let controller: AbortController | undefined;
    let abortReason: unknown;
    let settled = false;
    let timer: unknown;

    const settle = (result: AttemptResult) => {
      if (settled) return;
      settled = true;
      clock.clearTimeout(timer);
      parentSignal?.removeEventListener('abort', onParentAbort);
      resolve(result);
    };
    const abort = (reason: unknown) => {
      abortReason = reason;
      controller?.abort(reason);
    };
    const onParentAbort = () => {
      abort(parentSignal?.reason);
      settle(cancelled());
    };

    if (parentSignal?.aborted) {
      settle(cancelled());
      return;
    }
    parentSignal?.addEventListener('abort', onParentAbort, { once: true });
    timer = clock.setTimeout(() => {
      abort(new AttemptTimeout(`${tool.name} timed out after ${tool.timeoutMs} ms`));
      settle({
        outcome: 'timeout',
        error: errorData('TIMEOUT', `${tool.name} timed out after ${tool.timeoutMs} ms.`, {
          details: { timeoutMs: tool.timeoutMs },
          stage: 'execute',
        }),
        cancelled: false,
      });
    }, tool.timeoutMs);

    const toolCtx: ToolContext = {
      ...ctx,
      get signal() {
        if (!controller) {
          controller = new AbortController();
          if (abortReason !== undefined) controller.abort(abortReason);
        }
        return controller.signal;
      },
    };
    invoke(tool, input, toolCtx, clock, fault).then(
      (value) => settle({ outcome: 'ok', value }),
      (error: unknown) => settle({ outcome: 'error', error: classifyError(error), cancelled: false }),
    );
  });
}

function cancelled(): AttemptResult {
  return {
    outcome: 'error',
    error: errorData('CANCELLED', 'The call was cancelled before the tool finished.', { stage: 'execute' }),
    cancelled: true,
  };
}
