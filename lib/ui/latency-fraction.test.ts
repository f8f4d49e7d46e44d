import { describe, expect, it } from 'vitest';
import { latencyFraction } from './latency-fraction';

describe('latencyFraction', () => {
  it('puts the slowest call at a full bar and keeps fast calls visible on a log scale', () => {
    expect(latencyFraction(10_000, 10_000)).toBe(1);
    const fast = latencyFraction(2, 10_000);
    expect(fast).toBeGreaterThan(0.1);
    expect(fast).toBeLessThan(0.15);
    expect(latencyFraction(100, 10_000)).toBeGreaterThan(fast);
  });
  it('draws nothing without a latency', () => {
    expect(latencyFraction(null, 100)).toBe(0);
    expect(latencyFraction(0, 100)).toBe(0);
    expect(latencyFraction(5, 0)).toBe(0);
  });
});
