import type { CircuitBreakerPolicy } from './types';

export type CircuitState = 'closed' | 'open' | 'half_open';

export interface CircuitBreaker {
  readonly policy: CircuitBreakerPolicy;
  /** Whether a call may run now; in half-open state only one trial call is let through. */
  tryAcquire(now: number): boolean;
  onSuccess(): void;
  /** A failed call; `traceId` names it among the failures that trip the breaker. */
  onFailure(now: number, traceId?: string): void;
  /** The call ended neither way (it was cancelled): counts nothing, frees a half-open trial slot. */
  release(): void;
  state(now: number): CircuitState;
  /** Milliseconds until a trial call is allowed (0 unless open). */
  retryInMs(now: number): number;
  /** When it opened (the `now` of the failure that opened it); null while closed. */
  openedAt(): number | null;
  /** When it opened, in epoch ms (for people); null while closed. */
  openedAtEpoch(): number | null;
  /** The trace ids of the failures in a row, oldest first, at most `failureThreshold`: those that tripped it once open. */
  failures(): readonly string[];
  /** Closes it and forgets its failures (a person reset it). */
  reset(): void;
  /** Closed, no failure counted, no trial running: nothing about it is worth keeping. */
  idle(): boolean;
}

/**
 * A breaker: opens after `failureThreshold` consecutive failures, lets one trial call through
 * after `cooldownMs`, closes again when that call succeeds; a failed trial opens it for a whole
 * cooldown again.
 */
export function createCircuitBreaker(policy: CircuitBreakerPolicy, epochMs: () => number = Date.now): CircuitBreaker {
  let failures = 0;
  let failedTraces: string[] = [];
  let openedAt: number | null = null;
  let openedAtEpoch: number | null = null;
  let trialInFlight = false;

  const state = (now: number): CircuitState => {
    if (openedAt === null) return 'closed';
    return now - openedAt >= policy.cooldownMs ? 'half_open' : 'open';
  };

  return {
    policy,
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
      failedTraces = [];
      openedAt = null;
      openedAtEpoch = null;
      trialInFlight = false;
    },
    onFailure(now, traceId) {
      failures += 1;
      if (traceId !== undefined) {
        failedTraces.push(traceId);
        if (failedTraces.length > policy.failureThreshold) failedTraces.shift();
      }
      if (trialInFlight || failures >= policy.failureThreshold) {
        openedAt = now;
        openedAtEpoch = epochMs();
      }
      trialInFlight = false;
    },
    release() {
      trialInFlight = false;
    },
    retryInMs(now) {
      return openedAt === null ? 0 : Math.max(0, policy.cooldownMs - (now - openedAt));
    },
    openedAt: () => openedAt,
    openedAtEpoch: () => openedAtEpoch,
    failures: () => failedTraces,
    reset() {
      failures = 0;
      failedTraces = [];
      openedAt = null;
      openedAtEpoch = null;
      trialInFlight = false;
    },
    idle: () => failures === 0 && openedAt === null && !trialInFlight,
  };
}
