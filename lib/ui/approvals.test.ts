import { describe, expect, it } from 'vitest';
import { alwaysMatchText, hasWildcard, isUrgent } from './approvals';

describe('isUrgent', () => {
  it('is the last minute of a long wait, the last quarter of a short one', () => {
    expect(isUrgent(0, 600_000, 539_000)).toBe(false);
    expect(isUrgent(0, 600_000, 540_000)).toBe(true);
    expect(isUrgent(0, 20_000, 14_000)).toBe(false);
    expect(isUrgent(0, 20_000, 15_000)).toBe(true);
    expect(isUrgent(0, 20_000, 25_000)).toBe(true);
  });
});

describe('what an "always allow" rule matches', () => {
  it('tells an exact, escaped specifier from a pattern', () => {
    expect(hasWildcard('w/\\*')).toBe(false);
    expect(hasWildcard('w/*')).toBe(true);
    expect(hasWildcard('a\\\\*')).toBe(true);
    expect(hasWildcard('git * push *')).toBe(true);
    expect(alwaysMatchText('write_file', 'w/\\*')).toMatch(/only calls with exactly this subject/);
    expect(alwaysMatchText('write_file', 'notes/**')).toMatch(/every call this pattern fits/);
    expect(alwaysMatchText('write_file', null)).toBe('every write_file call, whatever its arguments');
  });
});
