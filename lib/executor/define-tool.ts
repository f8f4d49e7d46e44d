import type { CircuitBreakerPolicy, RetryPolicy, Tool, ToolDefinition } from './types';

export const DEFAULT_TIMEOUT_MS = 30_000;

export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 200,
  maxDelayMs: 5_000,
  factor: 2,
  jitter: 0.5,
};

export const DEFAULT_CIRCUIT_BREAKER: CircuitBreakerPolicy = { failureThreshold: 5, cooldownMs: 30_000 };

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * Declares a tool: schema, side effect, limits and `execute` in one object; fills in defaults.
 * @example
 * export const echo = defineTool({
 *   name: 'echo', description: 'Echo the text back', sideEffect: 'none',
 *   inputSchema: z.object({ text: z.string() }),
 *   execute: ({ text }) => ({ text }),
 * });
 */
export function defineTool<I, O>(definition: ToolDefinition<I, O>): Tool<I, O> {
  if (!TOOL_NAME.test(definition.name)) {
    throw new Error(`Tool name "${definition.name}" must be 1-64 letters, digits, "_" or "-"`);
  }
  const retry = { ...DEFAULT_RETRY, ...definition.retry };
  if (!Number.isInteger(retry.maxAttempts) || retry.maxAttempts < 1) {
    throw new Error(`Tool "${definition.name}": retry.maxAttempts must be an integer >= 1`);
  }
  if (retry.jitter < 0 || retry.jitter > 1) {
    throw new Error(`Tool "${definition.name}": retry.jitter must be between 0 and 1`);
  }
  const timeoutMs = definition.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!(timeoutMs > 0)) throw new Error(`Tool "${definition.name}": timeoutMs must be positive`);
  return {
    ...definition,
    timeoutMs,
    retry,
    circuitBreaker: definition.circuitBreaker ?? DEFAULT_CIRCUIT_BREAKER,
    sensitivePaths: definition.sensitivePaths ?? [],
    fallbacks: definition.fallbacks ?? [],
  };
}
