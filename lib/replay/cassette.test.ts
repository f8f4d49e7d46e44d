import { describe, expect, it } from 'vitest';
import { createMemoryTraceStore } from '../db/memory-trace-store';
import { makeTrace } from '../db/trace-store-suite';
import { canonicalJson } from './canonical-json';
import { loadCassette } from './cassette';

describe('canonicalJson', () => {
  it('sorts keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: [{ d: 1, c: 2 }, 3], a: null })).toBe('{"a":null,"b":[{"c":2,"d":1},3]}');
    expect(canonicalJson({ x: 1, y: 2 })).toBe(canonicalJson({ y: 2, x: 1 }));
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
  });
});

describe('loadCassette', () => {
  const tick = (sessionId: string, tickNo: number, overrides = {}) =>
    makeTrace({
      sessionId,
      tool: 'tick',
      rawArguments: '{"n": 1}',
      arguments: { n: 1 },
      output: { tick: tickNo },
      ...overrides,
    });

  it('serves identical calls in the order they were recorded, then the last, and skips unfinished ones', () => {
    const store = createMemoryTraceStore();
    const first = tick('rec', 1);
    const running = tick('rec', 0, { status: 'running', finishedAt: null });
    const second = tick('rec', 2);
    for (const trace of [first, running, second]) store.finish(trace);
    const cassette = loadCassette(store, 'rec', 'play');
    const served = [1, 2, 3].map(() => cassette?.take('tick', { n: 1 })?.traceId);
    expect(served).toEqual([first.id, second.id, second.id]);
    expect(cassette?.take('tick', { n: 2 })).toBeNull();
    expect(cassette?.take('other', { n: 1 })).toBeNull();
  });

  it('carries on where the serving session was (an earlier process served some of its calls)', () => {
    const store = createMemoryTraceStore();
    const recorded = [tick('rec', 1), tick('rec', 2), tick('rec', 3)];
    for (const trace of recorded) store.finish(trace);
    store.finish(tick('play', 1, { servedFrom: recorded[0]?.id }));
    store.finish(tick('play', 2, { servedFrom: recorded[1]?.id }));
    expect(loadCassette(store, 'rec', 'play')?.take('tick', { n: 1 })?.traceId).toBe(recorded[2]?.id);
    // Another serving session starts from the first.
    expect(loadCassette(store, 'rec', 'fresh')?.take('tick', { n: 1 })?.traceId).toBe(recorded[0]?.id);
  });

  it('keys calls on their redacted arguments, never opening the sealed ones', () => {
    const store = createMemoryTraceStore();
    const keyed = (key: string) =>
      tick('keys', 1, {
        rawArguments: JSON.stringify({ n: 1, api_key: key }),
        arguments: { n: 1, api_key: '[REDACTED]' },
      });
    const first = keyed('sk-one');
    const second = keyed('sk-two');
    for (const trace of [first, second]) store.finish(trace);
    const cassette = loadCassette(store, 'keys', 'play');
    expect(cassette?.take('tick', { n: 1, api_key: '[REDACTED]' })?.traceId).toBe(first.id);
    expect(cassette?.take('tick', { n: 1, api_key: '[REDACTED]' })?.traceId).toBe(second.id);
    expect(cassette?.take('tick', { n: 1, api_key: 'sk-one' })).toBeNull();
  });

  it('is null for a session with nothing to serve', () => {
    const store = createMemoryTraceStore();
    expect(loadCassette(store, 'nobody', null)).toBeNull();
    const parseFailed = { name: 'parse', status: 'failed', startedAt: 0, durationMs: 0, detail: 'not JSON' } as const;
    store.finish(tick('unparseable', 1, { rawArguments: '{"n": ', arguments: '{"n": ', stages: [parseFailed] }));
    expect(loadCassette(store, 'unparseable', null)).toBeNull();
  });
});
