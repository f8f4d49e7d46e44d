import { computeBackoff } from './backoff';
import { cancelledError } from './call-cancellation';
import { type CircuitBreaker, type CircuitState, createCircuitBreaker } from './circuit-breaker';
import type { Clock } from './clock';
import { errorData } from './errors';
import type { LiveCall } from './live-call';
import type { FaultSource, PolicyResolver } from './ports';
import type { Registry } from './registry';
import { type AttemptResult, runAttempt } from './run-attempt';
import { roundMs } from './stage-recorder';
import type { AnyTool, Attempt, CancelReason, SideEffect, ToolErrorData } from './types';
import { validateInput } from './validate-input';

/**
 * What the execute stage ends with. A failure may still carry `value`: what a failed process
 * returned (stdout, stderr, exit code), so the trace keeps it. `tool` produced the value.
 */
export type ExecuteOutcome =
  | { ok: true; value: unknown; tool: AnyTool; fellBackTo: string | null; notes: string[] }
  | { ok: false; error: ToolErrorData; value?: unknown; tool: AnyTool; notes: string[] };

export interface ExecuteStage {
  /** Stage 4 of one call: records each attempt in the live record as it starts and ends. */
  run(call: { tool: AnyTool; input: unknown; live: LiveCall; t0: number }): Promise<ExecuteOutcome>;
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

type ToolOutcome = { ok: true; value: unknown } | { ok: false; error: ToolErrorData; value?: unknown };

/**
 * The execute stage: attempts under their timeouts, backoff between retryable failures, a
 * circuit breaker per tool, then fallback tools while they are worth trying. A cancellation
 * interrupts the running attempt or the backoff wait; the breaker counts it as neither.
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

  /** Waits out a backoff; resolves with the cancel reason when the call is cancelled meanwhile. */
  function waitBackoff(live: LiveCall, ms: number): Promise<CancelReason | null> {
    if (live.cancelReason) return Promise.resolve(live.cancelReason);
    if (ms <= 0) return Promise.resolve(null);
    return new Promise((resolve) => {
      const timer = clock.setTimeout(() => {
        live.onCancel(null);
        resolve(null);
      }, ms);
      live.onCancel((reason) => {
        clock.clearTimeout(timer);
        resolve(reason);
      });
    });
  }

  /** Runs one tool's attempts with backoff between retryable failures. */
  async function runAttempts(
    tool: AnyTool,
    input: unknown,
    live: LiveCall,
    t0: number,
    fallback: boolean,
  ): Promise<ToolOutcome> {
    const record = live.record;
    const breaker = breakerFor(tool);
    if (breaker && !breaker.tryAcquire(clock.now())) {
      const retryIn = Math.ceil(breaker.retryInMs(clock.now()));
      return {
        ok: false,
        error: errorData(
          'CIRCUIT_OPEN',
          `${tool.name} failed too many times in a row; it is not being called for ${retryIn} ms.`,
          { details: { tool: tool.name, retryInMs: retryIn }, stage: 'execute' },
        ),
      };
    }
    let last: AttemptResult | null = null;
    for (let n = 1; n <= tool.retry.maxAttempts; n++) {
      const fault =
        deps.faults?.faultFor({ traceId: record.id, tool: tool.name, sessionId: record.sessionId, attempt: n }) ?? null;
      const started = clock.now();
      const index = record.attempts.length;
      const attempt: Attempt = {
        // Numbered across the call, fallbacks included; the tool sees its own count in ctx.attempt.
        number: index + 1,
        tool: tool.name,
        fallback,
        startedAt: roundMs(started - t0),
        durationMs: 0,
        outcome: 'running',
        timeoutMs: tool.timeoutMs,
        error: null,
        backoffMs: null,
        fault: fault ? fault.type : null,
      };
      record.attempts.push(attempt);
      if (fault) record.flags.faulted = true;
      const output = live.startAttempt(attempt.number);
      live.changed();
      last = await runAttempt(
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
          output,
        },
        { clock, cancellation: live, fault },
      );
      const retry =
        last.outcome !== 'ok' &&
        last.outcome !== 'cancelled' &&
        last.error.retryable &&
        n < tool.retry.maxAttempts &&
        !live.cancelReason;
      const backoffMs = retry ? computeBackoff(tool.retry, n, random()) : null;
      // Replaced, not mutated: a snapshot taken while it ran keeps its `running` entry.
      record.attempts[index] = {
        ...attempt,
        durationMs: roundMs(clock.now() - started),
        outcome: last.outcome,
        error: last.outcome === 'ok' ? null : last.error,
        backoffMs,
      };
      live.changed();
      if (backoffMs === null) break;
      record.flags.retried = true;
      const cancelled = await waitBackoff(live, backoffMs);
      if (cancelled) {
        last = { outcome: 'cancelled', error: cancelledError(cancelled, 'execute') };
        break;
      }
    }
    if (breaker) {
      if (!last || last.outcome === 'cancelled') breaker.release();
      else if (last.outcome !== 'ok' && isHealthFailure(last.error)) breaker.onFailure(clock.now());
      else breaker.onSuccess();
    }
    if (!last) return { ok: false, error: errorData('EXECUTION_ERROR', `${tool.name} made no attempt.`) };
    if (last.outcome === 'ok') return { ok: true, value: last.value };
    const failed: ToolOutcome = { ok: false, error: last.error };
    if (last.outcome === 'error' && last.value !== undefined) failed.value = last.value;
    return failed;
  }

  /** Stage 4: the tool's attempts, then its fallbacks while they are worth trying. */
  async function run({
    tool,
    input,
    live,
    t0,
  }: {
    tool: AnyTool;
    input: unknown;
    live: LiveCall;
    t0: number;
  }): Promise<ExecuteOutcome> {
    const notes: string[] = [];
    let outcome: ToolOutcome = await runAttempts(tool, input, live, t0, false);
    if (outcome.ok) return { ...outcome, tool, fellBackTo: null, notes };
    if (!warrantsFallback(outcome.error)) return { ...outcome, tool, notes };
    const primary = { ...outcome, tool };
    let lastTried = primary;
    for (const name of tool.fallbacks) {
      if (live.cancelReason) break;
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
      live.record.flags.fellBack = true;
      outcome = await runAttempts(fallback, checked.value, live, t0, true);
      if (outcome.ok) {
        notes.push(`fell back to ${name} after ${primary.error.code}`);
        return { ...outcome, tool: fallback, fellBackTo: name, notes };
      }
      notes.push(`fallback ${name} failed: ${outcome.error.code}`);
      lastTried = { ...outcome, tool: fallback };
      if (!warrantsFallback(outcome.error)) break;
    }
    return { ...lastTried, notes };
  }

  return {
    run,
    circuitState: (name) => breakers.get(name)?.state(clock.now()) ?? 'closed',
  };
}
