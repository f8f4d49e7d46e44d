import type { RetryPolicy } from './types';

/**
 * The wait before attempt `failedAttempt + 1`: exponential (`base * factor^(n-1)`, capped at
 * `maxDelayMs`), then jittered down by up to `jitter` of itself so that many clients retrying at
 * once spread out.
 * @param random a number in [0, 1); injected so tests are deterministic.
 */
export function computeBackoff(policy: RetryPolicy, failedAttempt: number, random: number): number {
  const exponential = policy.baseDelayMs * policy.factor ** (failedAttempt - 1);
  const capped = Math.min(policy.maxDelayMs, exponential);
  return Math.max(0, Math.round(capped * (1 - policy.jitter * random)));
}
