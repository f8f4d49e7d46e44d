import { describe, expect, it } from 'vitest';
import { createCircuitBreaker } from './circuit-breaker';

/** A breaker that opens after 3 consecutive failures and half-opens 100 ms later. */
const breaker = () => createCircuitBreaker({ failureThreshold: 3, cooldownMs: 100 });

/** Opens `b` at `at` with the threshold's failures. */
function open(b: ReturnType<typeof breaker>, at = 0) {
  for (let i = 0; i < 3; i++) b.onFailure(at);
}

describe('circuit breaker', () => {
  it('stays closed below the threshold; a success resets the count', () => {
    const b = breaker();
    b.onFailure(0);
    b.onFailure(0);
    b.onSuccess();
    b.onFailure(0);
    b.onFailure(0);
    expect(b.state(0)).toBe('closed');
    expect(b.tryAcquire(0)).toBe(true);
    expect(b.retryInMs(0)).toBe(0);
  });

  it('opens at the threshold and refuses calls until the cooldown, saying how long is left', () => {
    const b = breaker();
    open(b, 10);
    expect(b.state(10)).toBe('open');
    expect(b.tryAcquire(50)).toBe(false);
    expect(b.retryInMs(50)).toBe(60);
    expect(b.state(110)).toBe('half_open');
    expect(b.retryInMs(110)).toBe(0);
  });

  it('half-open: lets exactly one trial through; its success closes the breaker', () => {
    const b = breaker();
    open(b);
    expect(b.tryAcquire(100)).toBe(true);
    expect(b.tryAcquire(100)).toBe(false);
    b.onSuccess();
    expect(b.state(100)).toBe('closed');
    expect(b.tryAcquire(100)).toBe(true);
  });

  it('half-open: a failed trial opens it again for a whole cooldown', () => {
    const b = breaker();
    open(b);
    expect(b.tryAcquire(100)).toBe(true);
    b.onFailure(120);
    expect(b.state(150)).toBe('open');
    expect(b.retryInMs(150)).toBe(70);
    expect(b.tryAcquire(220)).toBe(true);
  });

  it('a cancelled trial is neutral: it neither closes nor opens the breaker, and frees the trial slot', () => {
    const b = breaker();
    open(b);
    expect(b.tryAcquire(100)).toBe(true);
    b.release();
    // Still half-open (not closed by a call that proved nothing, not reopened by one that did not fail)...
    expect(b.state(100)).toBe('half_open');
    expect(b.retryInMs(100)).toBe(0);
    // ...and the next trial goes through instead of waiting for ever.
    expect(b.tryAcquire(100)).toBe(true);
    expect(b.tryAcquire(100)).toBe(false);
  });

  it('a cancelled call while closed counts for nothing either way', () => {
    const b = breaker();
    b.onFailure(0);
    b.onFailure(0);
    b.release();
    expect(b.state(0)).toBe('closed');
    b.onFailure(0);
    expect(b.state(0)).toBe('open');
  });

  it('keeps the trace ids of the failures in a row that tripped it, at most the threshold, until a success or a reset', () => {
    const b = breaker();
    b.onFailure(0, 't1');
    b.onSuccess();
    expect(b.failures()).toEqual([]);
    expect(b.idle()).toBe(true);
    for (const id of ['t2', 't3', 't4']) b.onFailure(5, id);
    expect(b.failures()).toEqual(['t2', 't3', 't4']);
    expect(b.openedAt()).toBe(5);
    expect(b.tryAcquire(105)).toBe(true);
    b.onFailure(110, 't5');
    expect(b.failures()).toEqual(['t3', 't4', 't5']);
    expect(b.idle()).toBe(false);
    b.reset();
    expect(b.state(110)).toBe('closed');
    expect(b.failures()).toEqual([]);
    expect(b.openedAt()).toBeNull();
    expect(b.idle()).toBe(true);
  });
});
