import { describe, expect, it } from 'vitest';
import { isUrgent } from './approvals';

describe('isUrgent', () => {
  it('is the last minute of a long wait, the last quarter of a short one', () => {
    expect(isUrgent(0, 600_000, 539_000)).toBe(false);
    expect(isUrgent(0, 600_000, 540_000)).toBe(true);
    expect(isUrgent(0, 20_000, 14_000)).toBe(false);
    expect(isUrgent(0, 20_000, 15_000)).toBe(true);
    expect(isUrgent(0, 20_000, 25_000)).toBe(true);
  });
});
