import { describe, expect, it } from 'vitest';
import { measureStoreBytes } from './store-bytes';

describe('where a stored call’s bytes go (bench/store-bytes.ts)', () => {
  it('reports every table and index, and the compact columns stay compact', () => {
    const report = measureStoreBytes(3_000);
    const part = (name: string) => report.parts.find((entry) => entry.name === name)?.bytesPerCall ?? 0;
    const column = (name: string) => report.columns.find((entry) => entry.name === name)?.averageBytes ?? 0;
    expect(report.calls).toBe(3_000);
    expect(report.parts.reduce((sum, entry) => sum + entry.bytesPerCall, 0)).toBeLessThanOrEqual(report.bytesPerCall);
    for (const name of ['tool_calls', 'tool_calls_search_data', 'tool_calls_id_unique', 'tool_calls_status_seq_idx'])
      expect(part(name), name).toBeGreaterThan(0);
    // Migration 0012's forms: ids as 16 bytes, stages and attempts as bytes, succeeded calls out of the status index.
    expect(column('id')).toBe(16);
    expect(column('stages')).toBeLessThan(35);
    expect(column('attempts')).toBeLessThan(20);
    expect(column('metadata')).toBe(0);
    expect(part('tool_calls_status_seq_idx')).toBeLessThan(part('tool_calls_tool_seq_idx') / 4);
  });
});
