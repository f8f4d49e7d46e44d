import { describe, expect, it } from 'vitest';
import { createSessionSequence } from './session-sequence';

describe('createSessionSequence', () => {
  it('reads a session from the store once, then counts on in memory', () => {
    const reads: string[] = [];
    const seq = createSessionSequence({
      storedMax: (sessionId) => {
        reads.push(sessionId);
        return sessionId === 'old' ? 7 : 0;
      },
    });
    expect([seq.of('a', 'old'), seq.of('b', 'new'), seq.of('c', 'old'), seq.of('d', null)]).toEqual([8, 1, 9, null]);
    expect(reads).toEqual(['old', 'new']);
  });

  it('gives a call the same number on each of its writes until it is done', () => {
    const seq = createSessionSequence({ storedMax: () => 0 });
    expect(seq.of('a', 's')).toBe(1);
    expect(seq.of('a', 's')).toBe(1);
    seq.done('a');
    expect(seq.of('b', 's')).toBe(2);
  });

  it('counts numbers not yet stored when a session dropped from memory comes back', () => {
    // The store has nothing committed yet: the numbers live only in queued writes.
    const seq = createSessionSequence({ storedMax: () => 0, maxSessions: 1 });
    expect(seq.of('a1', 'a')).toBe(1);
    expect(seq.of('a2', 'a')).toBe(2);
    expect(seq.of('b1', 'b')).toBe(1); // drops "a" from memory
    expect(seq.of('a3', 'a')).toBe(3);
  });
});
