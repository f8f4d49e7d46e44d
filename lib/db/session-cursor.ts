import { InvalidCursorError } from './trace-store';

const PREFIX = 'x1.';

/** Where a sessions page ends: the last row's activity time and id (the keyset). */
export interface SessionCursor {
  lastCallAt: number;
  id: string;
}

/** Encodes the last row of a sessions page as its opaque `nextCursor`. */
export function encodeSessionCursor({ lastCallAt, id }: SessionCursor): string {
  return Buffer.from(`${PREFIX}${lastCallAt}.${id}`, 'utf8').toString('base64url');
}

/** Decodes a cursor from `encodeSessionCursor`; throws `InvalidCursorError` for anything else. */
export function decodeSessionCursor(cursor: string): SessionCursor {
  const text = /^[A-Za-z0-9_-]{1,512}$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const match = /^x1\.(0|[1-9][0-9]{0,15})\.(.+)$/s.exec(text);
  const lastCallAt = match ? Number(match[1]) : Number.NaN;
  if (!match || !Number.isSafeInteger(lastCallAt)) throw new InvalidCursorError(cursor);
  return { lastCallAt, id: match[2] as string };
}
