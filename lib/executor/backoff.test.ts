import { describe, expect, it } from 'vitest';
import { computeBackoff } from './backoff';
import { createCircuitBreaker } from './circuit-breaker';

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

describe('circuit breaker', () => {
  it('opens after the threshold, half-opens after the cooldown, lets one trial through', () => {
    const breaker = createCircuitBreaker({ failureThreshold: 3, cooldownMs: 100 });
    for (let i = 0; i < 2; i++) breaker.onFailure(0);
    expect(breaker.state(0)).toBe('closed');
    breaker.onFailure(10);
    expect(breaker.state(10)).toBe('open');
    expect(breaker.tryAcquire(50)).toBe(false);
    expect(breaker.retryInMs(50)).toBe(60);
    expect(breaker.tryAcquire(110)).toBe(true);
    expect(breaker.tryAcquire(110)).toBe(false);
    breaker.onFailure(120);
    expect(breaker.state(150)).toBe('open');
    expect(breaker.tryAcquire(220)).toBe(true);
    breaker.onSuccess();
    expect(breaker.state(220)).toBe('closed');
  });
});
