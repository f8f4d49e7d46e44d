import { DEFAULT_CIRCUIT_BREAKER } from '../executor/define-tool';
import type { AnyTool, CircuitBreakerPolicy } from '../executor/types';

/** What the config's `tools.<name>` says of a built-in tool, over the tool's own defaults. */
export interface ToolSettings {
  /** Per attempt. */
  timeoutMs?: number;
  /** Attempts in all, the first included (1: no retry), as for MCP servers. */
  retries?: number;
  /** The breaker's thresholds (a field left out keeps the default), or false: no breaker. */
  circuitBreaker?: Partial<CircuitBreakerPolicy> | false;
}

/**
 * A tool with the config's settings applied: its timeout, its attempts and its breaker; the rest of
 * the definition as it was.
 * @example withToolSettings(tool, { timeoutMs: 5000, retries: 1, circuitBreaker: { failureThreshold: 3 } })
 */
export function withToolSettings<T extends AnyTool>(tool: T, settings: ToolSettings | undefined): T {
  if (!settings) return tool;
  const { timeoutMs, retries, circuitBreaker } = settings;
  return {
    ...tool,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    ...(retries !== undefined ? { retry: { ...tool.retry, maxAttempts: retries } } : {}),
    ...(circuitBreaker !== undefined
      ? {
          circuitBreaker:
            circuitBreaker === false
              ? false
              : { ...(tool.circuitBreaker || DEFAULT_CIRCUIT_BREAKER), ...circuitBreaker },
        }
      : {}),
  };
}
