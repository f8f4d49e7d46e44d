import { describe, expect, it } from 'vitest';
import { menuPosition } from './menu-position';

const screen = { width: 1440, height: 900 };
const size = { width: 256, height: 180 };
const button = (left: number, top: number) => ({ top, bottom: top + 24, right: left + 24 });

describe('menuPosition', () => {
  it('opens below its button, right-aligned with it', () => {
    expect(menuPosition(button(1380, 100), size, screen)).toEqual({ top: 128, left: 1404 - 256, maxHeight: 892 });
  });

  it('opens above a button near the bottom, and stays inside when neither side has room', () => {
    expect(menuPosition(button(1380, 850), size, screen).top).toBe(850 - 4 - 180);
    const short = { width: 1440, height: 200 };
    const placed = menuPosition(button(1380, 90), size, short);
    expect(placed.top).toBeGreaterThanOrEqual(4);
    expect(placed.top + Math.min(size.height, placed.maxHeight)).toBeLessThanOrEqual(196);
  });

  it('is pushed back inside when the button is at or past an edge (a table scrolled sideways)', () => {
    expect(menuPosition(button(1500, 100), size, screen).left).toBe(1440 - 4 - 256);
    expect(menuPosition(button(40, 100), size, screen).left).toBe(4);
    expect(menuPosition(button(100, 100), size, { width: 200, height: 900 }).left).toBe(4);
  });
});
