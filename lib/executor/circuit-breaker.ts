import type { CircuitBreakerPolicy } from './types';

export type CircuitState = 'closed' | 'open' | 'half_open';

export interface CircuitBreaker {
  /** Whether a call may run now; in half-open state only one trial call is let through. */
  tryAcquire(now: number): boolean;
  onSuccess(): void;
  onFailure(now: number): void;
  /** The call ended neither way (it was cancelled): counts nothing, frees a half-open trial slot. */
  release(): void;
  state(now: number): CircuitState;
  /** Milliseconds until a trial call is allowed (0 unless open). */
  retryInMs(now: number): number;
}

/**
 * A per-tool breaker: opens after `failureThreshold` consecutive failures, lets one trial call
 * through after `cooldownMs`, closes again when that call succeeds.
 */
export function createCircuitBreaker(policy: CircuitBreakerPolicy): CircuitBreaker {
  let failures = 0;
  let openedAt: number | null = null;
  let trialInFlight = false;

  const state = (now: number): CircuitState => {
    if (openedAt === null) return 'closed';
    return now - openedAt >= policy.cooldownMs ? 'half_open' : 'open';
  };

  return {
    state,
    tryAcquire(now) {
      const current = state(now);
      if (current === 'closed') return true;
      if (current === 'open' || trialInFlight) return false;
      trialInFlight = true;
      return true;
    },
    onSuccess() {
      failures = 0;
      openedAt = null;
      trialInFlight = false;
    },
    onFailure(now) {
      failures += 1;
      if (trialInFlight || failures >= policy.failureThreshold) openedAt = now;
      trialInFlight = false;
    },
    release() {
      trialInFlight = false;
    },
    retryInMs(now) {
      return openedAt === null ? 0 : Math.max(0, policy.cooldownMs - (now - openedAt));
    },
  };
}
