import { describe, expect, it } from 'vitest';
import { decodeSessionCursor, encodeSessionCursor } from './session-cursor';
import { isInvalidCursorError } from './trace-store';

describe('session cursors', () => {
  it('round-trip the keyset, whatever the id holds', () => {
    for (const id of ['run-1', 'a.b.c', 'x1.7.y', 'sp ace/ünï', '0']) {
      const cursor = encodeSessionCursor({ lastCallAt: 1_764_000_000_123, id });
      expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(decodeSessionCursor(cursor)).toEqual({ lastCallAt: 1_764_000_000_123, id });
    }
  });

  it('refuse anything they did not hand out, with the INVALID_CURSOR code', () => {
    const encode = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
    for (const cursor of [
      '',
      'not a cursor',
      encode('x1.12.'),
      encode('x1.-1.id'),
      encode('s1.12'),
      encode('x1.01.id'),
    ]) {
      let thrown: unknown = null;
      try {
        decodeSessionCursor(cursor);
      } catch (error) {
        thrown = error;
      }
      expect(isInvalidCursorError(thrown), cursor).toBe(true);
    }
  });
});
