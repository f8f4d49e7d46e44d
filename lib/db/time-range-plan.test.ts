import { describe, expect, it } from 'vitest';
import { CREATED_AT_INDEX_MAX_ROWS, chooseTimeRangePlan } from './time-range-plan';

describe('chooseTimeRangePlan', () => {
  it('uses the index for small ranges, whatever lies above them', () => {
    expect(chooseTimeRangePlan({ rangeRows: 0, newerRows: 0 })).toBe('created-at-index');
    expect(chooseTimeRangePlan({ rangeRows: CREATED_AT_INDEX_MAX_ROWS, newerRows: 0 })).toBe('created-at-index');
  });

  it('scans newest first when a large range starts near the top (last hour, last day)', () => {
    expect(chooseTimeRangePlan({ rangeRows: 36_000, newerRows: 0 })).toBe('seq-scan');
    expect(chooseTimeRangePlan({ rangeRows: 960_000, newerRows: 36_000 })).toBe('seq-scan');
  });

  it('uses the index when more rows lie above the range than in it (a range long ago)', () => {
    expect(chooseTimeRangePlan({ rangeRows: 36_000, newerRows: 900_000 })).toBe('created-at-index');
  });
});
