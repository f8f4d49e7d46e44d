import { describe, expect, it } from 'vitest';
import { createEventRing, nextLiveId, nextReplayId } from './event-ring';

const T = Date.UTC(2026, 0, 1);
const events = (n: number) => Array.from({ length: n }, () => ({ id: 0 }));

describe('event ids', () => {
  it('are even for live events, odd for replayed ones, and say when (ms = floor(id / 1000))', () => {
    expect(nextLiveId(0, T)).toBe(T * 1000);
    expect(nextLiveId(T * 1000, T)).toBe(T * 1000 + 2);
    // The wall clock going back does not take ids back.
    expect(nextLiveId(T * 1000 + 2, T - 5)).toBe(T * 1000 + 4);
    expect(nextReplayId(T * 1000, T)).toBe(T * 1000 + 1);
    expect(nextReplayId(T * 1000 + 1, T)).toBe(T * 1000 + 3);
    expect(nextReplayId(T * 1000 + 3, T + 7)).toBe((T + 7) * 1000 + 1);
    expect(Math.floor(nextReplayId(T * 1000, T + 7) / 1000)).toBe(T + 7);
  });
});

describe('createEventRing', () => {
  it('stamps each batch in order and keeps the newest batches, at most `capacity` events', () => {
    const ring = createEventRing<{ id: number }>(T, 5);
    expect(ring.covers(ring.floor)).toBe(true);
    const first = events(3);
    ring.stamp(first, T);
    expect(first.map((e) => e.id)).toEqual([T * 1000 + 2, T * 1000 + 4, T * 1000 + 6]);
    const second = events(3);
    ring.stamp(second, T + 1);
    expect(second.map((e) => e.id)).toEqual([(T + 1) * 1000, (T + 1) * 1000 + 2, (T + 1) * 1000 + 4]);
    // Six events: the oldest batch went, and with it the ring's hold on the ids before.
    expect(ring.floor).toBe(T * 1000 + 6);
    expect(ring.covers(T * 1000 + 4)).toBe(false);
    expect(ring.covers(T * 1000 + 6)).toBe(true);
    expect(ring.after(T * 1000 + 6)).toEqual(second);
    expect(ring.after(second[0]!.id)).toEqual(second.slice(1));
    expect(ring.after(ring.last)).toEqual([]);
  });

  it('covers only even ids it gave out: not a replayed (odd) id, not one from the future', () => {
    const ring = createEventRing<{ id: number }>(T);
    ring.stamp(events(2), T);
    expect(ring.covers(ring.last)).toBe(true);
    expect(ring.covers(ring.last - 1)).toBe(false);
    expect(ring.covers(ring.last + 2)).toBe(false);
    ring.observe(ring.last + 101);
    expect(ring.last % 2).toBe(0);
    const next = events(1);
    ring.stamp(next, T);
    expect(next[0]!.id).toBeGreaterThan(T * 1000 + 4 + 101);
  });

  it('after a gap (events that got no id) covers nothing before it', () => {
    const ring = createEventRing<{ id: number }>(T);
    ring.stamp(events(2), T);
    const seen = ring.last;
    ring.gap(T);
    expect(ring.covers(seen)).toBe(false);
    expect(ring.after(seen)).toEqual([]);
    const next = events(1);
    ring.stamp(next, T);
    expect(ring.covers(ring.floor)).toBe(true);
    expect(ring.after(ring.floor)).toEqual(next);
  });
});
