import { describe, expect, it } from 'vitest';
import {
  axisTicks,
  formatBytes,
  formatClock,
  formatCount,
  formatDateTime,
  formatDuration,
  formatPercent,
  formatRelative,
  formatTimer,
  formatUtcOffset,
  shortId,
} from './format';
import { parseTimeZoneChoice, resolveTimeZone, timeZoneCookieValue } from './time-zone';

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
    expect(formatCount(950)).toBe('950');
    expect(formatCount(11_234)).toBe('11.2k');
    expect(formatCount(4_800)).toBe('4.8k');
    expect(formatCount(2_100_000)).toBe('2.1M');
  });
});

describe('times in one zone', () => {
  const t = Date.UTC(2026, 10, 28, 23, 30, 5, 7); // 2026-11-28 23:30:05.007 UTC
  it('formats the same text whatever the runtime locale or zone', () => {
    expect(formatDateTime(t, 'UTC')).toBe('2026-11-28 23:30:05.007');
    // Paris is one hour ahead in winter: already the next day there
    expect(formatDateTime(t, 'Europe/Paris')).toBe('2026-11-29 00:30:05.007');
    expect(formatDateTime(t, 'Asia/Kolkata')).toBe('2026-11-29 05:00:05.007');
  });
  it('shows the date on rows that are not from today, the year when not this year', () => {
    expect(formatClock(t, 'UTC', t + 60_000)).toBe('23:30:05.007');
    expect(formatClock(t, 'UTC', t + 3_600_000)).toBe('Nov 28 23:30:05.007');
    expect(formatClock(t, 'Europe/Paris', t + 3_600_000)).toBe('00:30:05.007');
    expect(formatClock(t, 'UTC', Date.UTC(2027, 0, 2))).toBe('2026-11-28 23:30:05.007');
  });
  it('labels the zone as UTC±hh', () => {
    expect(formatUtcOffset(t, 'UTC')).toBe('UTC');
    expect(formatUtcOffset(t, 'Europe/Paris')).toBe('UTC+01');
    expect(formatUtcOffset(Date.UTC(2026, 6, 1), 'Europe/Paris')).toBe('UTC+02');
    expect(formatUtcOffset(t, 'America/New_York')).toBe('UTC-05');
    expect(formatUtcOffset(t, 'Asia/Kolkata')).toBe('UTC+05:30');
  });
  it('says how long ago', () => {
    expect(formatRelative(t, t + 400)).toBe('just now');
    expect(formatRelative(t, t + 42_000)).toBe('42 s ago');
    expect(formatRelative(t, t + 5 * 60_000)).toBe('5 min ago');
    expect(formatRelative(t, t + 3 * 3_600_000)).toBe('3 h ago');
    expect(formatRelative(t, t + 86_400_000)).toBe('1 day ago');
    expect(formatRelative(t, t - 5_000)).toBe('in 5 s');
  });
  it('reads the cookie choice, defaulting to the server zone', () => {
    expect(parseTimeZoneChoice(undefined)).toEqual({ kind: 'server' });
    expect(parseTimeZoneChoice('utc')).toEqual({ kind: 'utc' });
    expect(parseTimeZoneChoice('Europe/Paris')).toEqual({ kind: 'fixed', zone: 'Europe/Paris' });
    expect(parseTimeZoneChoice('Not/AZone')).toEqual({ kind: 'server' });
    expect(resolveTimeZone({ kind: 'server' }, 'Asia/Tokyo').zone).toBe('Asia/Tokyo');
    expect(resolveTimeZone({ kind: 'utc' }, 'Asia/Tokyo').zone).toBe('UTC');
    expect(timeZoneCookieValue({ kind: 'fixed', zone: 'Europe/Paris' })).toBe('Europe/Paris');
  });
});

describe('formatTimer', () => {
  it('reads as a clock, never negative', () => {
    expect(formatTimer(0)).toBe('0:00');
    expect(formatTimer(7_900)).toBe('0:07');
    expect(formatTimer(272_400)).toBe('4:32');
    expect(formatTimer(3_729_000)).toBe('1:02:09');
    expect(formatTimer(-5_000)).toBe('0:00');
  });
});

describe('shortId', () => {
  it('keeps the end of a UUIDv7, whose start is the time', () => {
    expect(shortId('01a22add-8c5d-7692-857a-b13c07a8709c')).toBe('…07a8709c');
    expect(shortId('trace-1')).toBe('trace-1');
  });
});
