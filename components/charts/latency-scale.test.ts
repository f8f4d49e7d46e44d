import { describe, expect, it } from 'vitest';
import { latencyScale } from './latency-scale';

describe('latencyScale', () => {
  it('wraps the data in round values', () => {
    expect(latencyScale(3, 40)).toEqual({ domain: [2, 50], ticks: [2, 5, 10, 20, 50] });
    expect(latencyScale(5, 5)).toEqual({ domain: [5, 10], ticks: [5, 10] });
  });

  it('keeps at most a handful of ticks across many decades', () => {
    const { domain, ticks } = latencyScale(0.04, 30_000);
    expect(domain).toEqual([0.02, 50_000]);
    expect(ticks.length).toBeLessThanOrEqual(8);
    expect(ticks.every((t) => t >= domain[0] && t <= domain[1])).toBe(true);
    expect(ticks).toContain(1);
    expect(ticks).toContain(1000);
  });
});
