/**
 * Upper bounds (exclusive, ms) of the latency histogram the tool series keep, 1-2-5 steps from
 * 0.1 ms to 100 s: 19 thresholds, so 20 bins, the last one open ("100 s or more"). The one
 * source of truth: the triggers' CASE (see `latencyBinSql`, copied into the migration and
 * checked against it by a test), the store's `latencyBinOf`, the schema's columns and the percentile estimate all derive
 * from it. Changing it needs a migration that rebuilds the series tables.
 */
export const LATENCY_BIN_UPPER_MS = [
  0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000,
] as const;

/** How many bins the histogram has (one more than thresholds: the last is open-ended). */
export const LATENCY_BIN_COUNT = LATENCY_BIN_UPPER_MS.length + 1;

/** The column of bin `i` in the series tables. */
export const latencyBinColumn = (i: number): string => `bin_${i}`;

/** Every bin's column name, in order. */
export const LATENCY_BIN_COLUMNS: readonly string[] = Array.from({ length: LATENCY_BIN_COUNT }, (_, i) =>
  latencyBinColumn(i),
);

/**
 * The SQL expression giving the bin index of the latency `expr` (a column or `NEW.latency_ms`),
 * -1 when it is NULL (a call finished without a latency counts as a call but in no bin).
 * @example latencyBinSql('latency_ms') // "CASE WHEN latency_ms IS NULL THEN -1 WHEN latency_ms < 0.1 THEN 0 ... ELSE 19 END"
 */
export function latencyBinSql(expr: string): string {
  const steps = LATENCY_BIN_UPPER_MS.map((upper, i) => `WHEN ${expr} < ${upper} THEN ${i}`);
  return `CASE WHEN ${expr} IS NULL THEN -1 ${steps.join(' ')} ELSE ${LATENCY_BIN_UPPER_MS.length} END`;
}

/** The bin index of `ms`, as `latencyBinSql` computes it in SQLite. */
export function latencyBinOf(ms: number): number {
  const index = LATENCY_BIN_UPPER_MS.findIndex((upper) => ms < upper);
  return index === -1 ? LATENCY_BIN_UPPER_MS.length : index;
}

/**
 * Estimates the `p`th percentile (0 < p ≤ 100) from bin counts: finds the bin holding the
 * nearest rank, then interpolates inside it — linearly in the first bin (it starts at 0),
 * geometrically in the others (the bins are log-spaced, so is the spread within one). The
 * answer lies in the right bin, so it is off by less than the bin's width (a factor of 2.5 at
 * most); in the open last bin it is that bin's lower bound. Null when the bins are empty.
 * @example estimatePercentile([0, 0, 0, 0, 4, ...zeros], 50) // between 1 and 2 ms
 */
export function estimatePercentile(bins: readonly number[], p: number): number | null {
  const total = bins.reduce((sum, count) => sum + count, 0);
  if (total <= 0) return null;
  const rank = Math.min(total, Math.max(1, Math.ceil((p / 100) * total)));
  let below = 0;
  for (let i = 0; i < bins.length; i++) {
    const count = bins[i] ?? 0;
    if (count > 0 && below + count >= rank) {
      const upper = LATENCY_BIN_UPPER_MS[i];
      const lower = i === 0 ? 0 : (LATENCY_BIN_UPPER_MS[i - 1] ?? 0);
      if (upper === undefined) return lower;
      // Rank r of n in the bin sits at the middle of its 1/n slice: (r - 0.5) / n.
      const fraction = (rank - below - 0.5) / count;
      return i === 0 ? upper * fraction : lower * (upper / lower) ** fraction;
    }
    below += count;
  }
  return null;
}
