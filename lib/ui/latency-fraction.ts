/**
 * Width of a latency bar, 0..1, on a log scale up to the page's slowest call: a 2 ms call and a
 * 10 s call both stay visible and comparable, where a linear scale would flatten the fast ones.
 * @example latencyFraction(10_000, 10_000) // 1; latencyFraction(2, 10_000) // ≈ 0.12
 */
export function latencyFraction(ms: number | null, slowestMs: number): number {
  if (ms === null || !(ms > 0) || !(slowestMs > 0)) return 0;
  return Math.min(1, Math.log1p(ms) / Math.log1p(slowestMs));
}
