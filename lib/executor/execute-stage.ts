import { computeBackoff } from './backoff';
import { type CircuitBreaker, type CircuitState, createCircuitBreaker } from './circuit-breaker';
import { type Clock, sleep } from './clock';
import { errorData } from './errors';
import type { FaultSource, PolicyResolver } from './ports';
import type { Registry } from './registry';
import { runAttempt } from './run-attempt';
import { roundMs } from './stage-recorder';
import type { AnyTool, Attempt, ExecutionContext, SideEffect, ToolErrorData, TraceRecord } from './types';
import { validateInput } from './validate-input';

export interface ExecuteOutcome {
  value?: unknown;
  error?: ToolErrorData;
  /** The tool that produced the value (a fallback, possibly). */
  tool: AnyTool;
  fellBackTo: string | null;
}

export interface ExecuteStage {
  /** Stage 4 of one call: records each attempt in `record.attempts`, notes in `notes`. */
  run(
    tool: AnyTool,
    input: unknown,
    record: TraceRecord,
    t0: number,
    ctx: ExecutionContext,
    notes: string[],
  ): Promise<ExecuteOutcome>;
  circuitState(tool: string): CircuitState;
}

/** The side effect of one call: the tool's own answer for this input, or its declared worst case. */
export function sideEffectOf(tool: AnyTool, input: unknown): SideEffect {
  if (!tool.sideEffectOf) return tool.sideEffect;
  try {
    return tool.sideEffectOf(input);
  } catch {
    return tool.sideEffect;
  }
}

/** Errors after which a fallback tool is worth trying: the primary is down, not the request wrong. */
function warrantsFallback(error: ToolErrorData): boolean {
  return error.code !== 'CANCELLED' && (error.retryable || error.code === 'CIRCUIT_OPEN');
}

/** Breakers count failures that say the tool is unwell, not calls it answered with a "no". */
function isHealthFailure(error: ToolErrorData): boolean {
  return error.kind === 'temporary' || error.kind === 'timeout';
}

/**
 * The execute stage: attempts under their timeouts, backoff between retryable failures, a
 * circuit breaker per tool, then fallback tools while they are worth trying.
 */
export function createExecuteStage(deps: {
  registry: Registry;
  clock: Clock;
  random: () => number;
  faults: FaultSource | undefined;
  policyOf: PolicyResolver;
}): ExecuteStage {
  const { registry, clock, random, policyOf } = deps;
  const breakers = new Map<string, CircuitBreaker>();

  function breakerFor(tool: AnyTool): CircuitBreaker | null {
    if (!tool.circuitBreaker) return null;
    let breaker = breakers.get(tool.name);
    if (!breaker) {
      breaker = createCircuitBreaker(tool.circuitBreaker);
      breakers.set(tool.name, breaker);
    }
    return breaker;
  }

  /** Runs one tool's attempts with backoff between retryable failures. */
  async function runAttempts(
    tool: AnyTool,
    input: unknown,
    record: TraceRecord,
    t0: number,
    ctx: ExecutionContext,
    fallback: boolean,
  ): Promise<{ value?: unknown; error?: ToolErrorData }> {
    const breaker = breakerFor(tool);
    if (breaker && !breaker.tryAcquire(clock.now())) {
      const retryIn = Math.ceil(breaker.retryInMs(clock.now()));
      return {
        error: errorData(
          'CIRCUIT_OPEN',
          `${tool.name} failed too many times in a row; it is not being called for ${retryIn} ms.`,
          { details: { tool: tool.name, retryInMs: retryIn }, stage: 'execute' },
        ),
      };
    }
    let last: { value?: unknown; error?: ToolErrorData } = {};
    for (let n = 1; n <= tool.retry.maxAttempts; n++) {
      const fault =
        deps.faults?.faultFor({ traceId: record.id, tool: tool.name, sessionId: record.sessionId, attempt: n }) ?? null;
      const started = clock.now();
      const result = await runAttempt(
        tool,
        input,
        {
          traceId: record.id,
          toolCallId: record.toolCallId,
          sessionId: record.sessionId,
          actor: record.actor,
          attempt: n,
          clock,
          metadata: record.metadata,
          output: { write: () => {} },
        },
        { clock, parentSignal: ctx.signal, fault },
      );
      const attempt: Attempt = {
        // Numbered across the call, fallbacks included; the tool sees its own count in ctx.attempt.
        number: record.attempts.length + 1,
        tool: tool.name,
        fallback,
        startedAt: roundMs(started - t0),
        durationMs: roundMs(clock.now() - started),
        outcome: result.outcome,
        error: result.outcome === 'ok' ? null : result.error,
        backoffMs: null,
        fault: fault ? fault.type : null,
      };
      record.attempts.push(attempt);
      if (fault) record.flags.faulted = true;
      if (result.outcome === 'ok') {
        last = { value: result.value };
        break;
      }
      last = { error: result.error };
      if (result.cancelled || !result.error.retryable || n === tool.retry.maxAttempts) break;
      const backoff = computeBackoff(tool.retry, n, random());
      attempt.backoffMs = backoff;
      record.flags.retried = true;
      try {
        await sleep(clock, backoff, ctx.signal);
      } catch {
        last = {
          error: errorData('CANCELLED', 'The call was cancelled while waiting to retry.', { stage: 'execute' }),
        };
        break;
      }
    }
    if (breaker) {
      if (last.error && isHealthFailure(last.error)) breaker.onFailure(clock.now());
      else breaker.onSuccess();
    }
    return last;
  }

  /** Stage 4: the tool's attempts, then its fallbacks while they are worth trying. */
  async function run(
    tool: AnyTool,
    input: unknown,
    record: TraceRecord,
    t0: number,
    ctx: ExecutionContext,
    notes: string[],
  ): Promise<ExecuteOutcome> {
    let outcome = await runAttempts(tool, input, record, t0, ctx, false);
    if (!outcome.error || !warrantsFallback(outcome.error)) return { ...outcome, tool, fellBackTo: null };
    const primaryError = outcome.error;
    for (const name of tool.fallbacks) {
      const fallback = registry.get(name);
      if (!fallback) {
        notes.push(`fallback ${name}: not registered`);
        continue;
      }
      const checked = validateInput(fallback.name, fallback.inputSchema, input);
      if (!checked.ok) {
        notes.push(`fallback ${name}: arguments do not fit its schema`);
        continue;
      }
      if (policyOf(fallback.name, sideEffectOf(fallback, checked.value)) !== 'allow') {
        notes.push(`fallback ${name}: its policy does not allow running it unasked`);
        continue;
      }
      record.flags.fellBack = true;
      outcome = await runAttempts(fallback, checked.value, record, t0, ctx, true);
      if (!outcome.error) {
        notes.push(`fell back to ${name} after ${primaryError.code}`);
        return { ...outcome, tool: fallback, fellBackTo: name };
      }
      notes.push(`fallback ${name} failed: ${outcome.error.code}`);
      if (!warrantsFallback(outcome.error)) break;
    }
    return { error: outcome.error ?? primaryError, tool, fellBackTo: null };
  }

  return {
    run,
    circuitState: (name) => breakers.get(name)?.state(clock.now()) ?? 'closed',
  };
}
