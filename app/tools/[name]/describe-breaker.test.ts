import { describe, expect, it } from 'vitest';
import { describeBreaker } from './describe-breaker';

describe('describeBreaker', () => {
  it('says the threshold, the cooldown, the trial and whether there is one per host', () => {
    expect(describeBreaker({ failureThreshold: 2, cooldownMs: 120_000 }, true)).toBe(
      'opens after 2 failures in a row · 2 min cooldown, then one trial call · one per host',
    );
    expect(describeBreaker({ failureThreshold: 1, cooldownMs: 30_000 }, false)).toBe(
      'opens after 1 failure in a row · 30 s cooldown, then one trial call',
    );
    expect(describeBreaker(false, false)).toBe('off');
  });
});
