import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from './cursor';
import { InvalidCursorError } from './trace-store';

describe('cursor', () => {
  it('round-trips a seq through an opaque, URL-safe string', () => {
    for (const seq of [1, 42, 1_000_000, Number.MAX_SAFE_INTEGER]) {
      const cursor = encodeCursor(seq);
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(cursor).not.toContain(String(seq));
      expect(decodeCursor(cursor)).toBe(seq);
    }
  });

  it('throws InvalidCursorError for anything it did not encode', () => {
    const encoded = (text: string) => Buffer.from(text).toString('base64url');
    const invalid = [
      '',
      '42',
      'not a cursor',
      encoded('s1.'),
      encoded('s1.0'),
      encoded('s1.-3'),
      encoded('s1.1.5'),
      encoded('s1.01'),
      encoded('s2.5'),
      encoded('s1.99999999999999999'),
      'x'.repeat(100),
    ];
    for (const cursor of invalid) {
      expect(() => decodeCursor(cursor), cursor).toThrow(InvalidCursorError);
    }
    const error = (() => {
      try {
        decodeCursor('nope');
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toMatchObject({ name: 'InvalidCursorError', code: 'INVALID_CURSOR', cursor: 'nope' });
  });
});
