import type { CircuitBreakers } from './circuit-breakers';
import type { Clock } from './clock';
import type { LiveCall } from './live-call';
import { decidePolicy, type FaultSource, type PolicyResolver } from './ports';
import type { Registry } from './registry';
import { createAttemptRunner, type ToolOutcome } from './run-attempts';
import { sideEffectOf } from './side-effect';
import type { AnyTool, ToolErrorData } from './types';
import { validateInput } from './validate-input';

/**
 * What the execute stage ends with. A failure may still carry `value`: what a failed process
 * returned (stdout, stderr, exit code), so the trace keeps it. `tool` produced the value.
 */
export type ExecuteOutcome =
  | { ok: true; value: unknown; tool: AnyTool; fellBackTo: string | null; notes: readonly string[] }
  | { ok: false; error: ToolErrorData; value?: unknown; tool: AnyTool; notes: readonly string[] };

export interface ExecuteStage {
  /** Stage 4 of one call: records each attempt in the live record as it starts and ends. */
  run(call: { tool: AnyTool; input: unknown; live: LiveCall; t0: number }): ExecuteOutcome | Promise<ExecuteOutcome>;
  /** The circuit breakers, per (tool, key). */
  readonly circuits: CircuitBreakers;
}

/** Errors after which a fallback tool is worth trying: the primary is down, not the request wrong. */
function warrantsFallback(error: ToolErrorData): boolean {
  return error.code !== 'CANCELLED' && (error.retryable || error.code === 'CIRCUIT_OPEN');
}

/** Shared by every outcome without notes (most of them): never pushed to. */
const NO_NOTES: readonly string[] = [];

/**
 * The execute stage: attempts under their timeouts, backoff between retryable failures, a
 * circuit breaker per tool (or per key the tool names: `http_request`'s host), then fallback
 * tools while they are worth trying. A cancellation interrupts the running attempt or the
 * backoff wait; the breaker counts it as neither.
 */
export function createExecuteStage(deps: {
  registry: Registry;
  clock: Clock;
  random: () => number;
  faults: FaultSource | undefined;
  policyOf: PolicyResolver;
}): ExecuteStage {
  const { registry, policyOf } = deps;
  const attempts = createAttemptRunner(deps);
  const runAttempts = attempts.run;

  /** Stage 4: the tool's attempts, then its fallbacks while they are worth trying. */
  function run({
    tool,
    input,
    live,
    t0,
  }: {
    tool: AnyTool;
    input: unknown;
    live: LiveCall;
    t0: number;
  }): ExecuteOutcome | Promise<ExecuteOutcome> {
    const primary = runAttempts(tool, input, live, t0, false);
    if (primary instanceof Promise) return primary.then((outcome) => afterPrimary(tool, input, live, t0, outcome));
    return afterPrimary(tool, input, live, t0, primary);
  }

  function afterPrimary(
    tool: AnyTool,
    input: unknown,
    live: LiveCall,
    t0: number,
    outcome: ToolOutcome,
  ): ExecuteOutcome | Promise<ExecuteOutcome> {
    if (outcome.ok) return { ok: true, value: outcome.value, tool, fellBackTo: null, notes: NO_NOTES };
    if (!warrantsFallback(outcome.error) || tool.fallbacks.length === 0) {
      const failed: ExecuteOutcome = { ok: false, error: outcome.error, tool, notes: NO_NOTES };
      if (outcome.value !== undefined) failed.value = outcome.value;
      return failed;
    }
    return runFallbacks(tool, input, live, t0, outcome);
  }

  /** The fallbacks, in order, once the primary's retries are exhausted. */
  async function runFallbacks(
    tool: AnyTool,
    input: unknown,
    live: LiveCall,
    t0: number,
    primary: ToolOutcome & { ok: false },
  ): Promise<ExecuteOutcome> {
    const notes: string[] = [];
    let lastTried: ExecuteOutcome = { ...primary, tool, notes };
    for (const name of tool.fallbacks) {
      if (live.cancelReason) break;
      const fallback = registry.get(name);
      if (!fallback) {
        notes.push(`fallback ${name}: not registered`);
        continue;
      }
      const checked = validateInput(fallback.name, fallback.inputSchema, input, live.record.rawArguments.length);
      if (!checked.ok) {
        notes.push(`fallback ${name}: arguments do not fit its schema`);
        continue;
      }
      const decided = decidePolicy(policyOf, {
        tool: fallback.name,
        input: checked.value,
        sideEffect: sideEffectOf(fallback, checked.value),
        actor: live.record.actor,
        sessionId: live.record.sessionId,
        principal: live.record.principal,
      });
      if (decided.policy !== 'allow') {
        notes.push(`fallback ${name}: its policy does not allow running it unasked (${decided.rule})`);
        continue;
      }
      live.record.flags.fellBack = true;
      const outcome = await runAttempts(fallback, checked.value, live, t0, true);
      if (outcome.ok) {
        notes.push(`fell back to ${name} after ${primary.error.code}`);
        return { ...outcome, tool: fallback, fellBackTo: name, notes };
      }
      notes.push(`fallback ${name} failed: ${outcome.error.code}`);
      lastTried = { ...outcome, tool: fallback, notes };
      if (!warrantsFallback(outcome.error)) break;
    }
    return lastTried;
  }

  return {
    run,
    circuits: attempts.circuits,
  };
}
