import { describe, expect, it } from 'vitest';
import { chartTicks, formatChartTick, formatChartTime } from './time-axis';

const T = Date.UTC(2026, 10, 30, 12, 34, 56);

describe('chart time axis', () => {
  it('puts ticks on round local times inside the range', () => {
    const hour = chartTicks(T - 3_600_000, T, 'hour');
    expect(hour).toHaveLength(6);
    expect(hour.every((t) => new Date(t).getMinutes() % 10 === 0 && new Date(t).getSeconds() === 0)).toBe(true);
    const week = chartTicks(T - 7 * 86_400_000, T, 'week');
    expect(week).toHaveLength(7);
    expect(week.every((t) => new Date(t).getHours() === 0 && new Date(t).getMinutes() === 0)).toBe(true);
    expect(chartTicks(T - 86_400_000, T, 'day').every((t) => new Date(t).getHours() % 3 === 0)).toBe(true);
  });

  it('writes UTC until hydrated, then local time; the week with its day', () => {
    expect(formatChartTime(T, 'hour', false)).toBe('12:34');
    expect(formatChartTime(T, 'week', false)).toBe('Mon 12:34');
    expect(formatChartTime(T, 'day', true)).toMatch(/^\d\d:\d\d$/);
    expect(formatChartTick(T, 'week')).toMatch(/^(Sun|Mon|Tue) (29|30|1)$/);
  });
});
