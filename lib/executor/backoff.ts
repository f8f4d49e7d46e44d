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

/**
 * The wait before the next attempt when the failed one said how long to wait (an HTTP 429 or 503
 * with `Retry-After`, as `details.retryAfterMs`): at least that long, but never more than the
 * retry policy's `maxDelayMs`; with the reason the attempt row shows.
 */
export function honourRetryAfter(
  policy: RetryPolicy,
  backoffMs: number,
  retryAfterMs: unknown,
): { backoffMs: number; reason?: string } {
  if (typeof retryAfterMs !== 'number' || !Number.isFinite(retryAfterMs) || retryAfterMs <= backoffMs) {
    return { backoffMs };
  }
  const waited = Math.min(Math.max(0, Math.round(retryAfterMs)), Math.max(backoffMs, policy.maxDelayMs));
  const capped = waited < retryAfterMs ? `, capped at the retry policy's ${policy.maxDelayMs} ms` : '';
  return { backoffMs: waited, reason: `Retry-After ${Math.round(retryAfterMs)} ms${capped}` };
}
