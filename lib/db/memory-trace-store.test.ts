import { describe, expect, it } from 'vitest';
import { createMemoryTraceStore } from './memory-trace-store';
import { describeScanWindow, describeTraceStore, makeTrace } from './trace-store-suite';

describeTraceStore('memory', () => createMemoryTraceStore());
describeTraceStore('memory with a capacity larger than any test', () => createMemoryTraceStore({ capacity: 5000 }));

describe('memory trace store with a capacity', () => {
  it('keeps only the newest calls, and pages over them without gaps', () => {
    const store = createMemoryTraceStore({ capacity: 10 });
    const traces = Array.from({ length: 25 }, () => makeTrace());
    for (const trace of traces) store.finish(trace);
    expect(store.get(traces[0]?.id ?? '')).toBeNull();
    expect(store.get(traces[24]?.id ?? '')).not.toBeNull();
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = store.list({ limit: 3, cursor });
      seen.push(...page.items.map((item) => item.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen.length).toBeGreaterThanOrEqual(10);
    expect(seen.length).toBeLessThanOrEqual(11);
    expect(seen).toEqual(
      traces
        .slice(-seen.length)
        .map((t) => t.id)
        .reverse(),
    );
  });
});

describeScanWindow('memory', () => createMemoryTraceStore({ scanWindow: 10 }));
