/**
 * The value at quantile `q` (0..1) of samples sorted ascending, nearest-rank: the smallest sample
 * with at least `q` of the samples at or below it. NaN for no samples.
 * @example percentile(Float64Array.of(1, 2, 3, 4), 0.5) // 2
 */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.ceil(q * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))] ?? Number.NaN;
}

/** The median of a few figures (one per repeated run); the mean of the middle two for an even count. */
export function median(values: readonly number[]): number {
  const finite = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (finite.length === 0) return Number.NaN;
  const middle = finite.length >> 1;
  if (finite.length % 2 === 1) return finite[middle] ?? Number.NaN;
  return ((finite[middle - 1] ?? 0) + (finite[middle] ?? 0)) / 2;
}
