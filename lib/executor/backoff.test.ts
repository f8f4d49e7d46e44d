import { describe, expect, it } from 'vitest';
import { computeBackoff } from './backoff';

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
