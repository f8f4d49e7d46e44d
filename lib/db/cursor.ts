import { InvalidCursorError } from './trace-store';

// A prefix makes the cursor opaque enough that nobody passes a bare seq, and gives room to
// change the encoding later (a new prefix) without misreading old cursors.
const PREFIX = 's1.';

/** Encodes a row's `seq` as the opaque `nextCursor` of a traces page. */
export function encodeCursor(seq: number): string {
  return Buffer.from(`${PREFIX}${seq}`, 'utf8').toString('base64url');
}

/**
 * Decodes a cursor from `encodeCursor` back to the `seq` that the next page starts below.
 * Throws `InvalidCursorError` for anything else (the API answers 400).
 */
export function decodeCursor(cursor: string): number {
  const text = /^[A-Za-z0-9_-]{1,64}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const digits = text.startsWith(PREFIX) ? text.slice(PREFIX.length) : '';
  const seq = /^[1-9][0-9]{0,15}$/.test(digits) ? Number(digits) : Number.NaN;
  if (!Number.isSafeInteger(seq)) throw new InvalidCursorError(cursor);
  return seq;
}
