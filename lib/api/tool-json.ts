import type { CircuitSnapshot } from '../executor/circuit-breakers';
import { inputJsonSchema } from '../executor/json-schema';
import type { AnyTool } from '../executor/types';
import type { Toolscope } from '../server/create-toolscope';

/** A breaker of a tool that is not closed, as the API gives it. */
export interface CircuitJson {
  /** What the breaker is kept per: a `host:port` for `http_request`; null for a tool's single breaker. */
  key: string | null;
  state: 'open' | 'half_open';
  /** ISO time it opened (the last failure that tripped it). */
  opened_at: string;
  /** ISO time a trial call is (or was, when half-open) let through. */
  retry_at: string;
  /** Trace ids of the failures in a row that tripped it, oldest first. */
  failures: string[];
}

export function circuitJson(circuit: CircuitSnapshot): CircuitJson {
  return {
    key: circuit.key,
    state: circuit.state,
    opened_at: new Date(circuit.openedAt).toISOString(),
    retry_at: new Date(circuit.retryAt).toISOString(),
    failures: circuit.failures,
  };
}

/** The breakers of `tool` that are not closed, open ones first. */
export function circuitsJson(ts: Pick<Toolscope, 'executor'>, tool: string): CircuitJson[] {
  return ts.executor.circuits(tool).map(circuitJson);
}

/**
 * A tool as `GET /api/v1/tools` lists it and `GET /api/v1/tools/:name` gives it: its effective
 * timeout, attempts and breaker thresholds (the config's `tools.<name>` over the defaults), the
 * worst state of its breakers (`circuit_state`) and each one not closed (`circuits`).
 */
export function toolJson(ts: Pick<Toolscope, 'executor' | 'toolPolicy'>, tool: AnyTool) {
  return {
    name: tool.name,
    description: tool.description,
    side_effect: tool.sideEffect,
    policy: ts.toolPolicy(tool.name, tool.sideEffect),
    timeout_ms: tool.timeoutMs,
    retry: {
      max_attempts: tool.retry.maxAttempts,
      base_delay_ms: tool.retry.baseDelayMs,
      max_delay_ms: tool.retry.maxDelayMs,
      factor: tool.retry.factor,
      jitter: tool.retry.jitter,
    },
    fallbacks: tool.fallbacks,
    // The breaker's thresholds, and whether there is one per key (http_request: per host:port); null: none.
    circuit_breaker: tool.circuitBreaker
      ? {
          failure_threshold: tool.circuitBreaker.failureThreshold,
          cooldown_ms: tool.circuitBreaker.cooldownMs,
          per_key: tool.circuitKey !== undefined,
        }
      : null,
    circuit_state: ts.executor.circuitState(tool.name),
    circuits: circuitsJson(ts, tool.name),
    input_schema: inputJsonSchema(tool),
  };
}
