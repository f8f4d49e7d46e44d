/**
 * The nearest-rank percentile of ascending-sorted values: always one of the observed values,
 * so "p95 = 1200 ms" means some call really took 1200 ms. Null when there are no values.
 * @example percentile([10, 20, 30, 40], 50) // 20
 */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? null;
}
