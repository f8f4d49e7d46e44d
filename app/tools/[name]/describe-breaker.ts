import type { CircuitBreakerPolicy } from '@/lib/executor/types';
import { formatDuration } from '@/lib/ui/format';

/**
 * A breaker's settings in words, for the tool page.
 * @example describeBreaker({ failureThreshold: 5, cooldownMs: 30_000 }, true) // 'opens after 5 failures in a row · 30 s cooldown, then one trial call · one per host'
 */
export function describeBreaker(policy: CircuitBreakerPolicy | false, perHost: boolean): string {
  if (!policy) return 'off';
  const n = policy.failureThreshold;
  return [
    `opens after ${n} failure${n === 1 ? '' : 's'} in a row`,
    `${formatDuration(policy.cooldownMs)} cooldown, then one trial call`,
    perHost ? 'one per host' : null,
  ]
    .filter(Boolean)
    .join(' · ');
}
