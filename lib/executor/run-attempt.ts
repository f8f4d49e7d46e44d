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
 * 1. An AbortController linked to the caller's signal is handed to the tool.
 * 2. At the deadline the signal fires and the attempt ends, even if the tool ignores it.
 * 3. The timer and listener are always cleared; a late rejection from the tool is swallowed.
 */
export async function runAttempt(
  tool: AnyTool,
  input: unknown,
  ctx: Omit<ToolContext, 'signal'>,
  options: { clock: Clock; parentSignal: AbortSignal | undefined; fault: Fault | null },
): Promise<AttemptResult> {
  const { clock, parentSignal, fault } = options;
  const controller = new AbortController();
  const onParentAbort = () => controller.abort(parentSignal?.reason);
  if (parentSignal?.aborted) onParentAbort();
  else parentSignal?.addEventListener('abort', onParentAbort, { once: true });

  let rejectOnAbort: (reason: unknown) => void = () => {};
  const aborted = new Promise<never>((_, reject) => {
    rejectOnAbort = reject;
  });
  const onAbort = () => rejectOnAbort(controller.signal.reason);
  controller.signal.addEventListener('abort', onAbort, { once: true });
  const timer = clock.setTimeout(
    () => controller.abort(new AttemptTimeout(`${tool.name} timed out after ${tool.timeoutMs} ms`)),
    tool.timeoutMs,
  );

  const running = invoke(tool, input, { ...ctx, signal: controller.signal }, clock, fault);
  try {
    const value = await Promise.race([running, aborted]);
    return { outcome: 'ok', value };
  } catch (error) {
    const reason = controller.signal.aborted ? controller.signal.reason : error;
    if (reason instanceof AttemptTimeout) {
      return {
        outcome: 'timeout',
        error: errorData('TIMEOUT', `${reason.message}.`, { details: { timeoutMs: tool.timeoutMs }, stage: 'execute' }),
        cancelled: false,
      };
    }
    if (parentSignal?.aborted) {
      return {
        outcome: 'error',
        error: errorData('CANCELLED', 'The call was cancelled before the tool finished.', { stage: 'execute' }),
        cancelled: true,
      };
    }
    return { outcome: 'error', error: classifyError(error), cancelled: false };
  } finally {
    clock.clearTimeout(timer);
    parentSignal?.removeEventListener('abort', onParentAbort);
    controller.signal.removeEventListener('abort', onAbort);
    if (!controller.signal.aborted) controller.abort(new Error('attempt finished'));
    running.catch(() => {});
    aborted.catch(() => {});
  }
}
