import { describe, expect, it } from 'vitest';
import { median, percentile } from './percentile';

describe('percentile', () => {
  it('is nearest-rank over sorted samples', () => {
    const samples = Float64Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(samples, 0.5)).toBe(50);
    expect(percentile(samples, 0.99)).toBe(99);
    expect(percentile(samples, 1)).toBe(100);
    expect(percentile(samples, 0)).toBe(1);
  });

  it('takes the top sample when there are too few for the quantile', () => {
    expect(percentile([1, 2, 3], 0.99)).toBe(3);
    expect(percentile([7], 0.5)).toBe(7);
  });

  it('is NaN for no samples', () => {
    expect(percentile([], 0.5)).toBeNaN();
  });
});

describe('median', () => {
  it('takes the middle of an odd count and the mean of the middle two of an even one', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('ignores runs without a figure', () => {
    expect(median([Number.NaN, 2, 4, 3])).toBe(3);
    expect(median([])).toBeNaN();
  });
});
