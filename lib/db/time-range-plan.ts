/**
 * How `list` walks the table for a query with a time range:
 * - `created-at-index`: the rows in the range through the created_at index, then sorted by seq.
 *   Costs the size of the range, whatever else the query says.
 * - `seq-scan`: newest first through seq (or a (column, seq) index), checking created_at on the
 *   way. Stops after one page of matches, but first steps over every row newer than the range.
 *
 * SQLite cannot choose well by itself: its statistics do not know that seq and created_at grow
 * together, so it assumes a range's rows are spread evenly over seq and picks the scan even for
 * a range a month ago (a million rows stepped over).
 */
export type TimeRangePlan = 'created-at-index' | 'seq-scan';

/** What `chooseTimeRangePlan` decides from; both read off the created_at index in O(log n). */
export interface TimeRangeEstimate {
  /** Rows in the range, estimated as the seq distance between its oldest and newest row. */
  rangeRows: number;
  /** Rows newer than the range (below the cursor) that a seq scan would step over first. */
  newerRows: number;
}

/** Ranges up to this size always go through the index: sorting them takes a few milliseconds. */
export const CREATED_AT_INDEX_MAX_ROWS = 20_000;

/**
 * Picks the cheaper walk: the index when the range is small or when more rows lie between the
 * newest row and the range than in the range itself; otherwise the scan, which finds a page
 * among the range's newest rows without sorting the whole range.
 * @example chooseTimeRangePlan({ rangeRows: 36_000, newerRows: 0 }) // 'seq-scan' (last hour)
 */
export function chooseTimeRangePlan({ rangeRows, newerRows }: TimeRangeEstimate): TimeRangePlan {
  return rangeRows <= Math.max(CREATED_AT_INDEX_MAX_ROWS, newerRows) ? 'created-at-index' : 'seq-scan';
}
