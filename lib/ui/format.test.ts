import { describe, expect, it } from 'vitest';
import { axisTicks, formatBytes, formatDuration, formatPercent } from './format';

describe('formatDuration', () => {
  it('reads well from microseconds to hours', () => {
    expect(formatDuration(0.014)).toBe('14 µs');
    expect(formatDuration(2)).toBe('2 ms');
    expect(formatDuration(2.345)).toBe('2.35 ms');
    expect(formatDuration(31.23)).toBe('31.2 ms');
    expect(formatDuration(214.2)).toBe('214 ms');
    expect(formatDuration(1534)).toBe('1.53 s');
    expect(formatDuration(600_000)).toBe('10 min');
    expect(formatDuration(601_234)).toBe('10 min 1 s');
    expect(formatDuration(2 * 3_600_000 + 60_000)).toBe('2 h 1 min');
    expect(formatDuration(null)).toBe('—');
    expect(formatDuration(0)).toBe('0 ms');
  });
});

describe('axisTicks', () => {
  it('covers the total with at most 9 round ticks', () => {
    for (const total of [0.05, 2, 7.3, 214, 1534, 59_000, 601_234, 5 * 3_600_000]) {
      const ticks = axisTicks(total);
      expect(ticks[0]).toBe(0);
      expect(ticks.at(-1)).toBeGreaterThanOrEqual(total);
      expect(ticks.length).toBeLessThanOrEqual(9);
    }
  });
  it('uses clock steps above a second', () => {
    expect(axisTicks(601_234).slice(0, 3)).toEqual([0, 120_000, 240_000]);
    expect(axisTicks(10)).toEqual([0, 2, 4, 6, 8, 10]);
  });
});

describe('formatBytes and formatPercent', () => {
  it('formats sizes and rates', () => {
    expect(formatBytes(1024 * 1024)).toBe('1 MiB');
    expect(formatBytes(300)).toBe('300 B');
    expect(formatPercent(1, 3)).toBe('33.3%');
    expect(formatPercent(0, 0)).toBe('—');
  });
});
