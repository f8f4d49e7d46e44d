import { computeBackoff, honourRetryAfter } from './backoff';
import { cancelledError } from './call-cancellation';
import { type CircuitBreakers, type CircuitEntry, circuitOpenError, createCircuitBreakers } from './circuit-breakers';
import type { Clock } from './clock';
import { attemptFault, faultApplies } from './fault-injection';
import type { LiveCall } from './live-call';
import { decidePolicy, type FaultSource, type PolicyResolver } from './ports';
import { type AttemptResult, runAttempt } from './run-attempt';
import { sideEffectOf } from './side-effect';
import { roundMs } from './stage-recorder';
import type { AnyTool, Attempt, AttemptFault, CancelReason, ToolErrorData } from './types';

/** One tool's outcome after its attempts: a failure may carry what a failed process returned. */
export type ToolOutcome = { ok: true; value: unknown } | { ok: false; error: ToolErrorData; value?: unknown };

export interface AttemptRunner {
  /**
   * Runs one tool's attempts for a call, with backoff between retryable failures, behind the
   * breaker of the tool (and of the call's key: its host for `http_request`). Synchronous when
   * the tool answers synchronously the first time.
   */
  run(tool: AnyTool, input: unknown, live: LiveCall, t0: number, fallback: boolean): ToolOutcome | Promise<ToolOutcome>;
  /** The breakers, per (tool, key). */
  readonly circuits: CircuitBreakers;
}

/**
 * An attempt's result as the call goes on with it: a failure's error scrubbed and bounded
 * (`live.scrubError`), which the attempt's entry, the call's outcome, the execute stage's detail
 * and the model message all carry.
 */
function asRecorded(live: LiveCall, result: AttemptResult): AttemptResult {
  return result.outcome === 'ok' ? result : { ...result, error: live.scrubError(result.error) };
}

/** Breakers count failures that say the tool is unwell, not calls it answered with a "no". */
function isHealthFailure(error: ToolErrorData): boolean {
  return error.kind === 'temporary' || error.kind === 'timeout';
}

/**
 * The attempts of the execute stage. Each attempt is in the record while it runs (`running`,
 * with its timeout) and replaced by its final entry when it ends; a cancellation interrupts the
 * running attempt or the backoff wait, and the breaker counts it as neither success nor failure.
 */
export function createAttemptRunner(deps: {
  clock: Clock;
  random: () => number;
  faults: FaultSource | undefined;
  /** The rules, for a tool that checks a step of its own (`ToolContext.permission`). */
  policyOf?: PolicyResolver;
}): AttemptRunner {
  const { clock, random, faults, policyOf } = deps;
  const circuits = createCircuitBreakers(clock);

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

  /**
   * The fault for call-wide attempt `number`: the call's one-off fault (replay with fault) when it
   * has one, as a rule with probability 1 would; otherwise the fault source's answer.
   */
  function faultFor(tool: AnyTool, input: unknown, live: LiveCall, number: number): AttemptFault | null {
    const oneOff = live.fault;
    if (oneOff) return faultApplies(oneOff, number) ? attemptFault(oneOff, { id: null }, random) : null;
    if (!faults || faults.idle?.()) return null;
    const record = live.record;
    return faults.faultFor({
      traceId: record.id,
      tool: tool.name,
      input,
      sessionId: record.sessionId,
      actor: record.actor,
      attempt: number,
    });
  }

  /** Starts attempt `n` of `tool`: records it as running, then runs it. */
  function startAttempt(tool: AnyTool, input: unknown, live: LiveCall, t0: number, fallback: boolean, n: number) {
    const record = live.record;
    const index = record.attempts.length;
    const fault = faultFor(tool, input, live, index + 1);
    const started = clock.now();
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
      fault,
    };
    record.attempts.push(attempt);
    if (fault) record.flags.faulted = true;
    const output = live.startAttempt(attempt.number);
    live.changed();
    const result = runAttempt(
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
        traceContext: record.traceContext ?? null,
        permission: policyOf
          ? (next: unknown) =>
              decidePolicy(policyOf, {
                tool: tool.name,
                input: next,
                sideEffect: sideEffectOf(tool, next),
                actor: record.actor,
                sessionId: record.sessionId,
                principal: record.principal,
              })
          : undefined,
      },
      { clock, cancellation: live, fault },
    );
    return { attempt, index, started, result };
  }

  /**
   * Ends an attempt with its result as recorded (`asRecorded`): its final entry replaces the
   * running one. Returns the backoff before the next, or null.
   */
  function endAttempt(
    tool: AnyTool,
    live: LiveCall,
    step: { attempt: Attempt; index: number; started: number },
    result: AttemptResult,
    n: number,
  ): number | null {
    const retry =
      result.outcome !== 'ok' &&
      result.outcome !== 'cancelled' &&
      result.error.retryable &&
      n < tool.retry.maxAttempts &&
      !live.cancelReason;
    let backoffMs = retry ? computeBackoff(tool.retry, n, random()) : null;
    let backoffReason: string | undefined;
    if (backoffMs !== null && result.outcome !== 'ok') {
      // The tool said how long to wait (HTTP Retry-After): wait at least that, within the policy's cap.
      const honoured = honourRetryAfter(tool.retry, backoffMs, result.error.details?.retryAfterMs);
      backoffMs = honoured.backoffMs;
      backoffReason = honoured.reason;
    }
    // Replaced, not mutated: a snapshot taken while it ran keeps its `running` entry.
    const { attempt } = step;
    live.record.attempts[step.index] = {
      number: attempt.number,
      tool: attempt.tool,
      fallback: attempt.fallback,
      startedAt: attempt.startedAt,
      durationMs: roundMs(clock.now() - step.started),
      outcome: result.outcome,
      timeoutMs: attempt.timeoutMs,
      error: result.outcome === 'ok' ? null : result.error,
      backoffMs,
      ...(backoffReason ? { backoffReason } : {}),
      fault: attempt.fault,
    };
    if (backoffMs !== null) live.record.flags.retried = true;
    live.changed();
    live.attemptEnded(attempt.number);
    return backoffMs;
  }

  /** The last attempt's result as the tool's outcome; the breaker learns from it (a cancellation teaches nothing). */
  function concludeAttempts(circuit: CircuitEntry | null, live: LiveCall, last: AttemptResult): ToolOutcome {
    if (circuit) {
      const { breaker } = circuit;
      if (last.outcome === 'cancelled') breaker.release();
      else if (last.outcome !== 'ok' && isHealthFailure(last.error)) breaker.onFailure(clock.now(), live.record.id);
      else breaker.onSuccess();
      circuits.settle(circuit);
    }
    if (last.outcome === 'ok') return { ok: true, value: last.value };
    const failed: ToolOutcome = { ok: false, error: last.error };
    if (last.outcome === 'error' && last.value !== undefined) failed.value = last.value;
    return failed;
  }

  /**
   * A tool that answers synchronously on its first attempt gets its outcome synchronously (no
   * promise on the hot path); anything that waits continues in `continueAttempts`.
   */
  function runAttempts(
    tool: AnyTool,
    input: unknown,
    live: LiveCall,
    t0: number,
    fallback: boolean,
  ): ToolOutcome | Promise<ToolOutcome> {
    const circuit = circuits.forCall(tool, input);
    if (circuit && !circuit.breaker.tryAcquire(clock.now())) {
      return { ok: false, error: circuitOpenError(circuit, clock) };
    }
    if (live.cancelReason) {
      return concludeAttempts(circuit, live, {
        outcome: 'cancelled',
        error: cancelledError(live.cancelReason, 'execute'),
      });
    }
    const step = startAttempt(tool, input, live, t0, fallback, 1);
    if (step.result instanceof Promise) {
      return step.result.then((result) => continueAttempts(tool, input, live, t0, fallback, circuit, step, result));
    }
    return continueAttempts(tool, input, live, t0, fallback, circuit, step, step.result);
  }

  /** Ends attempt `step` with `result`, then waits out backoffs and runs the next attempts. */
  function continueAttempts(
    tool: AnyTool,
    input: unknown,
    live: LiveCall,
    t0: number,
    fallback: boolean,
    circuit: CircuitEntry | null,
    step: { attempt: Attempt; index: number; started: number },
    ended: AttemptResult,
  ): ToolOutcome | Promise<ToolOutcome> {
    const result = asRecorded(live, ended);
    const backoffMs = endAttempt(tool, live, step, result, 1);
    if (backoffMs === null) return concludeAttempts(circuit, live, result);
    return (async () => {
      let last = result;
      let wait: number | null = backoffMs;
      for (let n = 2; wait !== null; n++) {
        const cancelled = await waitBackoff(live, wait);
        if (cancelled) {
          last = { outcome: 'cancelled', error: cancelledError(cancelled, 'execute') };
          break;
        }
        const next = startAttempt(tool, input, live, t0, fallback, n);
        last = asRecorded(live, await next.result);
        wait = endAttempt(tool, live, next, last, n);
      }
      return concludeAttempts(circuit, live, last);
    })();
  }

  return {
    run: runAttempts,
    circuits,
  };
}
