import { type Clock, sleep } from './clock';
import { ToolError } from './errors';
import { isProcessOutput, processOutput } from './process-output';
import type { AnyTool, Attempt, AttemptFault, FaultSpec, ToolContext, ToolErrorData } from './types';

/** The code of the retryable failures `fail_first` injects. */
export const INJECTED_FAILURE_CODE = 'INJECTED_FAILURE';
/** The code of the 429-like failures `rate_limit` injects. */
export const INJECTED_RATE_LIMIT_CODE = 'RATE_LIMITED';

/**
 * Whether `spec` does anything to call-wide attempt `attempt`: `fail_first` only touches the
 * call's first `n` attempts; every other kind touches any attempt.
 */
export function faultApplies(spec: FaultSpec, attempt: number): boolean {
  return spec.kind !== 'fail_first' || attempt <= spec.n;
}

/**
 * The fault as injected into one attempt: the rule that fired it, and latency's real delay
 * (`ms` plus `random()` of `jitterMs`). `random` is a number in [0, 1): the rule's seeded
 * generator, or the executor's for a one-off fault.
 */
export function attemptFault(
  spec: FaultSpec,
  rule: { id: string | null; name?: string },
  random: () => number,
): AttemptFault {
  const by = rule.name === undefined ? { ruleId: rule.id } : { ruleId: rule.id, ruleName: rule.name };
  if (spec.kind === 'latency') {
    const jitter = spec.jitterMs ? Math.round(random() * spec.jitterMs) : 0;
    return { ...by, ...spec, ms: spec.ms + jitter };
  }
  return { ...by, ...spec };
}

/** Who injected a fault, as messages say it: `fault rule "flaky search"`, or the one-off fault of a replay. */
export function faultOrigin(fault: AttemptFault): string {
  if (fault.ruleId === null) return 'a one-off fault given with this call';
  return `fault rule "${fault.ruleName ?? fault.ruleId}"`;
}

/**
 * An error an injected fault caused, marked so no one takes it for a real failure: the message
 * starts with `Injected fault (…):` naming the rule, and `details.injectedFault` says which.
 */
export function markInjected(error: ToolErrorData, fault: AttemptFault): ToolErrorData {
  if (error.details?.injectedFault) return error;
  return {
    ...error,
    message: `Injected fault (${faultOrigin(fault)}, ${fault.kind}): ${error.message}`,
    details: {
      ...error.details,
      injectedFault: {
        ruleId: fault.ruleId,
        ...(fault.ruleName ? { ruleName: fault.ruleName } : {}),
        kind: fault.kind,
      },
    },
  };
}

/**
 * Whether an attempt's failure was caused by its fault (and is to be marked injected): every
 * failure of a fault that never runs the tool; with `latency`, only the timeout it provoked.
 * A tool's own error after an injected delay, or under `corrupt_output`, is a real one.
 */
export function faultCaused(fault: AttemptFault, outcome: 'error' | 'timeout'): boolean {
  if (fault.kind === 'latency') return outcome === 'timeout';
  return fault.kind !== 'corrupt_output';
}

/** JSON text of a value; a string as is. */
function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? 'null';
  } catch {
    return String(value);
  }
}

/**
 * `text` made invalid JSON the way broken producers do: a trailing comma before the closing
 * bracket of an object or array, otherwise an object left open.
 */
function breakJson(text: string): string {
  const trimmed = text.trimEnd();
  const last = trimmed.at(-1);
  if ((last === '}' || last === ']') && trimmed.length > 2) return `${trimmed.slice(0, -1)},${last}`;
  return `{"value": ${trimmed}`;
}

/** The output as `corrupt_output` leaves it: replaced by `value`, cut to half its JSON, or made invalid JSON. */
export function corruptOutput(value: unknown, fault: Extract<FaultSpec, { kind: 'corrupt_output' }>): unknown {
  if (isProcessOutput(value)) {
    // A process's output is its stdout: that is what gets corrupted (normalize parses it).
    const stdout =
      fault.mode === 'replace'
        ? textOf(fault.value ?? '')
        : fault.mode === 'truncate'
          ? value.stdout.slice(0, Math.floor(value.stdout.length / 2))
          : breakJson(value.stdout);
    return processOutput({ ...value, stdout });
  }
  if (fault.mode === 'replace') return fault.value === undefined ? null : fault.value;
  const text = textOf(value);
  if (fault.mode === 'truncate') return text.slice(0, Math.floor(text.length / 2));
  return breakJson(text);
}

/**
 * Runs one attempt under `fault`, in the execute stage, as the tool would fail or answer:
 * - latency: waits `ms` (the real delay, jitter included) on the attempt's signal, then runs the
 *   tool; the wait counts inside the attempt's timeout;
 * - timeout: hangs until the attempt's deadline aborts it;
 * - error: throws `code` and `message`; retryable only when `retryable` says so (then a
 *   temporary error, else a business one);
 * - fail_first / rate_limit: throw a retryable, temporary error (rate_limit a 429 with
 *   `details.retryAfterMs`, which the backoff honours);
 * - exit_code: answers like a process that failed (exit code, stderr), without running the tool;
 * - corrupt_output: runs the tool, then corrupts what it returned (output validation then sees it).
 * Async so synchronous throws become rejections.
 */
export async function invokeWithFault(
  tool: AnyTool,
  input: unknown,
  ctx: ToolContext,
  clock: Clock,
  fault: AttemptFault,
): Promise<unknown> {
  switch (fault.kind) {
    case 'latency':
      await sleep(clock, fault.ms, ctx.signal);
      return tool.execute(input, ctx);
    case 'timeout':
      return new Promise<never>(() => {}); // hangs until the deadline (or a cancellation) ends the attempt
    case 'error': {
      const retryable = fault.retryable ?? false;
      throw new ToolError({
        code: fault.code,
        message: fault.message ?? `${tool.name} failed with ${fault.code}.`,
        kind: retryable ? 'temporary' : 'business',
        retryable,
      });
    }
    case 'fail_first':
      throw new ToolError({
        code: INJECTED_FAILURE_CODE,
        message: `${tool.name} failed on purpose: ${fault.n === 1 ? "the call's first attempt fails" : `the call's first ${fault.n} attempts fail`}, later ones run the tool.`,
        kind: 'temporary',
        retryable: true,
      });
    case 'rate_limit':
      throw new ToolError({
        code: INJECTED_RATE_LIMIT_CODE,
        message: `${tool.name} answered 429 Too Many Requests; retry after ${fault.retryAfterMs} ms.`,
        kind: 'temporary',
        retryable: true,
        hint: 'The service is rate limiting; wait before calling again.',
        details: { status: 429, retryAfterMs: fault.retryAfterMs },
      });
    case 'exit_code':
      return processOutput({
        stdout: '',
        stderr: fault.stderr ?? `${tool.name}: exited with code ${fault.code} (injected fault)`,
        exitCode: fault.code,
      });
    case 'corrupt_output':
      return corruptOutput(await tool.execute(input, ctx), fault);
  }
}

/**
 * The execute stage's count of attempts, saying how many had a fault injected and by what, so
 * the stage list never shows a faulted call as an ordinary one: `3 attempts, 2 with an injected
 * fault (fault rule "flaky search")`.
 */
export function describeAttempts(attempts: readonly Attempt[], faulted: boolean): string {
  const count = attempts.length === 1 ? '1 attempt' : `${attempts.length} attempts`;
  if (!faulted) return count;
  const origins = new Set<string>();
  let injected = 0;
  for (const attempt of attempts) {
    if (!attempt.fault) continue;
    injected++;
    origins.add(faultOrigin(attempt.fault));
  }
  if (injected === 0) return count;
  const which = injected === attempts.length ? (injected === 1 ? '' : 'all ') : `${injected} `;
  return `${count}, ${which}with an injected fault (${[...origins].join(', ')})`;
}
