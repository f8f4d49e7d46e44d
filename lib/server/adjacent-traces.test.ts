import { describe, expect, it } from 'vitest';
import { createMemoryTraceStore } from '../db/memory-trace-store';
import { makeTrace } from '../db/trace-store-suite';
import { adjacentTraces } from './adjacent-traces';

describe('adjacentTraces (fallback for stores without adjacent)', () => {
  it('finds the newer and older call, also across same-millisecond calls and long gaps', () => {
    const store = createMemoryTraceStore();
    const t = 1_700_000_000_000;
    const a = makeTrace({ createdAt: t });
    const b = makeTrace({ createdAt: t + 5 });
    const c = makeTrace({ createdAt: t + 5 });
    const d = makeTrace({ createdAt: t + 90_000_000 });
    for (const trace of [a, b, c, d]) store.finish(trace);
    const order = store.list().items.map((item) => item.id);
    const [newest, second, third, oldest] = order as [string, string, string, string];
    const view = (id: string) => {
      const trace = [a, b, c, d].find((x) => x.id === id)!;
      return adjacentTraces(Object.assign({}, store, { adjacent: undefined }), trace);
    };
    expect(view(newest)).toEqual({ newer: null, older: second });
    expect(view(second)).toEqual({ newer: newest, older: third });
    expect(view(third)).toEqual({ newer: second, older: oldest });
    expect(view(oldest)).toEqual({ newer: third, older: null });
  });
});
