import { REDACTED_MARK } from './json-issues';

/** A piece of plain text, tagged when it is a redaction or a truncation marker. */
export interface TextPiece {
  kind: 'text' | 'redacted' | 'truncation';
  text: string;
}

const MARKS = /\[REDACTED\]|…\[truncated \d+ of \d+ characters\]…/g;

/** Splits text around `[REDACTED]` and the executor's truncation markers, so views can mark them. */
export function splitMarks(text: string): TextPiece[] {
  if (!text.includes(REDACTED_MARK) && !text.includes('…[truncated ')) return [{ kind: 'text', text }];
  const pieces: TextPiece[] = [];
  let last = 0;
  for (const match of text.matchAll(MARKS)) {
    const at = match.index ?? 0;
    if (at > last) pieces.push({ kind: 'text', text: text.slice(last, at) });
    pieces.push({ kind: match[0] === REDACTED_MARK ? 'redacted' : 'truncation', text: match[0] });
    last = at + match[0].length;
  }
  if (last < text.length) pieces.push({ kind: 'text', text: text.slice(last) });
  return pieces;
}

/**
 * Offsets of the case-insensitive matches of `query` in `haystack` (already lower-cased), at most
 * `max` of them. One linear pass.
 */
export function findMatches(haystack: string, query: string, max = 10_000): number[] {
  const needle = query.toLowerCase();
  if (!needle) return [];
  const found: number[] = [];
  for (
    let at = haystack.indexOf(needle);
    at >= 0 && found.length < max;
    at = haystack.indexOf(needle, at + needle.length)
  ) {
    found.push(at);
  }
  return found;
}

/** Where each line of `text` starts, for the first `maxLines` lines. */
export function lineStarts(text: string, maxLines = Number.POSITIVE_INFINITY): number[] {
  const starts = [0];
  for (let at = text.indexOf('\n'); at >= 0 && starts.length < maxLines; at = text.indexOf('\n', at + 1)) {
    starts.push(at + 1);
  }
  return starts;
}

/**
 * A string as it appears inside JSON quotes: quotes, backslashes, newlines, tabs and control
 * characters escaped, so `a"b` + newline reads `a\"b\n` and a value never spans lines unseen.
 */
export function escapeJsonString(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}
