import { describe, expect, it } from 'vitest';
import { chunkedMakespan, idealMakespan } from './reference-rows';

describe('the batch schedules the bench compares', () => {
  it('a pool gives each next call to the first worker free', () => {
    expect(idealMakespan([80, 10, 10, 10, 10], 2)).toBe(80);
    expect(idealMakespan([10, 10, 10], 4)).toBe(10);
    expect(idealMakespan([], 4)).toBe(0);
  });

  it('fixed chunks wait for each chunk’s slowest call', () => {
    expect(chunkedMakespan([80, 10, 10, 10, 10], 2)).toBe(80 + 10 + 10);
    expect(chunkedMakespan([5, 50, 5, 5], 2)).toBe(55);
  });
});
