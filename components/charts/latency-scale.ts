import { LATENCY_BIN_UPPER_MS } from '@/lib/db/latency-bins';

const STEPS = [0.01, 0.02, 0.05, ...LATENCY_BIN_UPPER_MS, 200_000, 500_000, 1_000_000];

/**
 * A log-scale domain and ticks for latencies between `min` and `max` (ms): round 1-2-5 values
 * around the data, thinned to powers of ten when there are more than five. Latency spans
 * decades (a 0.2 ms calculation, a 30 s HTTP call), which a linear axis would flatten.
 * @example latencyScale(3, 40) // { domain: [2, 50], ticks: [2, 5, 10, 20, 50] }
 */
export function latencyScale(min: number, max: number): { domain: [number, number]; ticks: number[] } {
  const low = [...STEPS].reverse().find((s) => s <= min) ?? STEPS[0]!;
  const high = STEPS.find((s) => s >= max && s > low) ?? STEPS.at(-1)!;
  let ticks = STEPS.filter((s) => s >= low && s <= high);
  if (ticks.length > 5) {
    const decades = ticks.filter((s) => Number.isInteger(Math.log10(s)) || s === low || s === high);
    ticks = decades.length > 5 ? decades.filter((s) => Number.isInteger(Math.log10(s))) : decades;
  }
  return { domain: [low, high], ticks };
}
