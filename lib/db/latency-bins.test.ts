import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  estimatePercentile,
  LATENCY_BIN_COUNT,
  LATENCY_BIN_UPPER_MS,
  latencyBinOf,
  latencyBinSql,
} from './latency-bins';
import { percentile } from './percentile';

/** A histogram of `values` as the triggers would keep it. */
function histogram(values: number[]): number[] {
  const bins = new Array<number>(LATENCY_BIN_COUNT).fill(0);
  for (const v of values) bins[latencyBinOf(v)] = (bins[latencyBinOf(v)] ?? 0) + 1;
  return bins;
}

describe('latency bins', () => {
  it('has about twenty ascending, log-spaced bins', () => {
    expect(LATENCY_BIN_COUNT).toBe(20);
    for (let i = 1; i < LATENCY_BIN_UPPER_MS.length; i++) {
      const ratio = (LATENCY_BIN_UPPER_MS[i] ?? 0) / (LATENCY_BIN_UPPER_MS[i - 1] ?? 1);
      expect(ratio).toBeGreaterThanOrEqual(2);
      expect(ratio).toBeLessThanOrEqual(2.5);
    }
  });

  it('bins in SQLite exactly as in TypeScript, edges and NULL included', () => {
    const db = new Database(':memory:');
    const bin = db.prepare(`SELECT ${latencyBinSql('x')} FROM (SELECT ? AS x)`).pluck();
    const samples = [0, 0.05, 0.1, 0.19999, 0.2, 1, 7.5, 99.9, 100, 4_999, 5_000, 99_999, 100_000, 3_600_000];
    for (const ms of samples) expect(bin.get(ms), `${ms} ms`).toBe(latencyBinOf(ms));
    expect(bin.get(null)).toBe(-1);
    db.close();
  });

  it('estimates a percentile inside the bin of the exact one', () => {
    const values = Array.from({ length: 1000 }, (_, i) => 0.05 * 1.012 ** i); // 0.05 ms … ~8 s
    const sorted = [...values].sort((a, b) => a - b);
    for (const p of [50, 90, 95, 99]) {
      const exact = percentile(sorted, p) ?? Number.NaN;
      const estimate = estimatePercentile(histogram(values), p) ?? Number.NaN;
      expect(latencyBinOf(estimate), `p${p}: exact ${exact}, estimate ${estimate}`).toBe(latencyBinOf(exact));
      expect(Math.abs(Math.log(estimate / exact))).toBeLessThan(Math.log(1.5));
    }
  });

  it('handles empty, single-value, first-bin and open-ended histograms', () => {
    expect(estimatePercentile(histogram([]), 50)).toBeNull();
    const one = estimatePercentile(histogram([3]), 95) ?? 0;
    expect(one).toBeGreaterThanOrEqual(2);
    expect(one).toBeLessThan(5);
    expect(estimatePercentile(histogram([0.01, 0.02]), 50)).toBeLessThan(0.1);
    expect(estimatePercentile(histogram([200_000, 300_000]), 95)).toBe(100_000);
  });
});
