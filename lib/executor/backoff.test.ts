import { describe, expect, it } from 'vitest';
import { computeBackoff, honourRetryAfter } from './backoff';

const policy = { maxAttempts: 5, baseDelayMs: 100, maxDelayMs: 1000, factor: 2, jitter: 0.5 };

describe('computeBackoff', () => {
  it('grows exponentially and stops at the cap', () => {
    expect([1, 2, 3, 4, 5].map((n) => computeBackoff({ ...policy, jitter: 0 }, n, 0.9))).toEqual([
      100, 200, 400, 800, 1000,
    ]);
  });

  it('jitters down by at most the jitter fraction', () => {
    expect(computeBackoff(policy, 1, 0)).toBe(100);
    expect(computeBackoff(policy, 1, 0.999)).toBe(50);
    expect(computeBackoff({ ...policy, jitter: 1 }, 3, 0.5)).toBe(200);
  });
});

describe('honourRetryAfter', () => {
  it('waits at least what the tool asked, within the policy cap, and says why', () => {
    expect(honourRetryAfter(policy, 100, 400)).toEqual({ backoffMs: 400, reason: 'Retry-After 400 ms' });
    expect(honourRetryAfter(policy, 100, 5000)).toEqual({
      backoffMs: 1000,
      reason: "Retry-After 5000 ms, capped at the retry policy's 1000 ms",
    });
  });

  it('keeps the policy backoff when it is longer, or when no usable Retry-After came', () => {
    expect(honourRetryAfter(policy, 800, 300)).toEqual({ backoffMs: 800 });
    for (const none of [undefined, null, 'soon', Number.NaN, -5])
      expect(honourRetryAfter(policy, 100, none)).toEqual({ backoffMs: 100 });
  });
});
