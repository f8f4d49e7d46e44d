import { describe, expect, it } from 'vitest';
import { createOccurrenceCounter } from './sse-subscribers';

describe('createOccurrenceCounter', () => {
  it('counts every occurrence in a chunk', () => {
    const counter = createOccurrenceCounter('"type":"finish"');
    counter.push('data: {"type":"finish","id":"a"}\n\ndata: {"type":"begin"}\n\ndata: {"type":"finish"}\n\n');
    expect(counter.count).toBe(2);
  });

  it('counts an occurrence split across chunks once', () => {
    const counter = createOccurrenceCounter('"type":"finish"');
    const text = 'event: trace\ndata: {"type":"finish","id":"x"}\n\n'.repeat(50);
    for (let size = 1; size <= 17; size++) {
      const each = createOccurrenceCounter('"type":"finish"');
      for (let at = 0; at < text.length; at += size) each.push(text.slice(at, at + size));
      expect(each.count).toBe(50);
    }
    counter.push(text);
    expect(counter.count).toBe(50);
  });
});
