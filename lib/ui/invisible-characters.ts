/**
 * A piece of text to show: plain text, or one invisible or control character shown as its escape
 * (`\u202E`), with the character's code point and what it does, for a title.
 */
export type VisiblePiece =
  | { kind: 'text'; text: string }
  | { kind: 'escaped'; text: string; char: string; code: string; name: string; effect: string };

export interface VisibleOptions {
  /** Multi-line text (an output, a message): newlines, tabs and the `\r` of a `\r\n` stay as they are. */
  lines?: boolean;
}

/**
 * Characters a reader cannot see or that change how the text around them is shown: control
 * characters (Cc), format characters (Cf: bidirectional overrides and isolates, zero-width
 * characters, the byte order mark, the soft hyphen, tag characters), line and paragraph
 * separators, lone surrogates, and the Hangul fillers that render as blank letters. A zero width
 * joiner between two emoji stays (it makes them one picture).
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\u115F\u1160\u3164\uFFA0]/u;
const INVISIBLE_ALL = new RegExp(INVISIBLE.source, 'gu');

const NAMES: Record<number, string> = {
  0: 'NULL',
  7: 'BELL',
  8: 'BACKSPACE',
  9: 'CHARACTER TABULATION',
  10: 'LINE FEED',
  11: 'LINE TABULATION',
  12: 'FORM FEED',
  13: 'CARRIAGE RETURN',
  27: 'ESCAPE',
  127: 'DELETE',
  133: 'NEXT LINE',
  173: 'SOFT HYPHEN',
  1564: 'ARABIC LETTER MARK',
  4447: 'HANGUL CHOSEONG FILLER',
  4448: 'HANGUL JUNGSEONG FILLER',
  6158: 'MONGOLIAN VOWEL SEPARATOR',
  8203: 'ZERO WIDTH SPACE',
  8204: 'ZERO WIDTH NON-JOINER',
  8205: 'ZERO WIDTH JOINER',
  8206: 'LEFT-TO-RIGHT MARK',
  8207: 'RIGHT-TO-LEFT MARK',
  8232: 'LINE SEPARATOR',
  8233: 'PARAGRAPH SEPARATOR',
  8234: 'LEFT-TO-RIGHT EMBEDDING',
  8235: 'RIGHT-TO-LEFT EMBEDDING',
  8236: 'POP DIRECTIONAL FORMATTING',
  8237: 'LEFT-TO-RIGHT OVERRIDE',
  8238: 'RIGHT-TO-LEFT OVERRIDE',
  8288: 'WORD JOINER',
  8294: 'LEFT-TO-RIGHT ISOLATE',
  8295: 'RIGHT-TO-LEFT ISOLATE',
  8296: 'FIRST STRONG ISOLATE',
  8297: 'POP DIRECTIONAL ISOLATE',
  12644: 'HANGUL FILLER',
  65279: 'ZERO WIDTH NO-BREAK SPACE (byte order mark)',
  65440: 'HALFWIDTH HANGUL FILLER',
};

/** The short escapes JSON uses, for the control characters that have one. */
const SHORT: Record<string, string> = { '\n': '\\n', '\t': '\\t', '\r': '\\r', '\b': '\\b', '\f': '\\f' };

/** What a character does to the text a reader sees, in a few words. */
function effectOf(code: number): string {
  if (code === 0x202e || code === 0x202b || code === 0x2067) return 'shows the text after it right to left';
  if (code === 0x202d || code === 0x202a || code === 0x2066) return 'shows the text after it left to right';
  if (code === 0x202c || code === 0x2069 || code === 0x2068) return 'changes the direction text is shown in';
  if (code === 0x200e || code === 0x200f || code === 0x061c) return 'an invisible mark that moves text around it';
  if (code === 0x2028 || code === 0x2029 || code === 0x85) return 'breaks the line';
  if (code === 0xad) return 'shows only where a line breaks';
  if (code >= 0xe0000 && code <= 0xe007f) return 'an invisible tag: it can carry hidden text';
  if (code === 0x115f || code === 0x1160 || code === 0x3164 || code === 0xffa0) return 'a letter that shows as blank';
  if (code >= 0xd800 && code <= 0xdfff) return 'half of a character (a lone surrogate)';
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return 'a control character';
  return 'invisible: takes no space';
}

/** `U+202E`, `U+E0041`. */
const codePointOf = (code: number) => `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;

/** The escape shown for a character: `\n` where JSON has a short one, else `\u202E` or `\u{E0041}`. */
function escapeOf(char: string, code: number): string {
  const short = SHORT[char];
  if (short) return short;
  const hex = code.toString(16).toUpperCase();
  return code > 0xffff ? `\\u{${hex}}` : `\\u${hex.padStart(4, '0')}`;
}

function escapedPiece(char: string): VisiblePiece {
  const code = char.codePointAt(0)!;
  return {
    kind: 'escaped',
    text: escapeOf(char, code),
    char,
    code: codePointOf(code),
    name: NAMES[code] ?? (code >= 0xe0000 && code <= 0xe007f ? 'TAG CHARACTER' : 'FORMAT OR CONTROL CHARACTER'),
    effect: effectOf(code),
  };
}

const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;

/** The code point that ends at `end` (a surrogate pair read as one), or undefined at the start. */
function codePointBefore(text: string, end: number): string | undefined {
  if (end <= 0) return undefined;
  const low = text.charCodeAt(end - 1);
  const high = end >= 2 ? text.charCodeAt(end - 2) : 0;
  const paired = low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff;
  return text.slice(paired ? end - 2 : end - 1, end);
}

/** What may stand between an emoji and a joiner after it: a variation selector, a skin tone. */
const isEmojiTail = (char: string) => char === '\uFE0F' || /^[\u{1F3FB}-\u{1F3FF}]$/u.test(char);

/** A zero width joiner between two emoji (👩‍💻) is part of one picture, not hidden text. */
function joinsEmoji(text: string, at: number): boolean {
  let end = at;
  let before = codePointBefore(text, end);
  while (before !== undefined && isEmojiTail(before)) {
    end -= before.length;
    before = codePointBefore(text, end);
  }
  const after = text.codePointAt(at + 1);
  return (
    before !== undefined &&
    PICTOGRAPHIC.test(before) &&
    after !== undefined &&
    PICTOGRAPHIC.test(String.fromCodePoint(after))
  );
}

/** Whether a character found by INVISIBLE stays as it is. */
function kept(text: string, at: number, options: VisibleOptions): boolean {
  const char = text[at];
  if (char === '\u200D') return joinsEmoji(text, at);
  return !!options.lines && (char === '\n' || char === '\t' || (char === '\r' && text[at + 1] === '\n'));
}

/** Whether `text` holds a character that `splitInvisible` would escape. */
export function hasInvisible(text: string, options: VisibleOptions = {}): boolean {
  if (!INVISIBLE.test(text)) return false;
  return splitInvisible(text, options).some((piece) => piece.kind === 'escaped');
}

/**
 * Splits text into plain pieces and escaped invisible or control characters, one piece each, so a
 * view shows every character a reader could not see (`report-\u202Efdp.sh` instead of what reads
 * as `report-hs.pdf`). One linear pass; text without such characters is one piece.
 * @example splitInvisible('a\u200Bb') // [{ kind: 'text', text: 'a' }, { kind: 'escaped', text: '\\u200B', … }, { kind: 'text', text: 'b' }]
 */
export function splitInvisible(text: string, options: VisibleOptions = {}): VisiblePiece[] {
  if (!INVISIBLE.test(text)) return [{ kind: 'text', text }];
  const pieces: VisiblePiece[] = [];
  let last = 0;
  for (const match of text.matchAll(INVISIBLE_ALL)) {
    const at = match.index ?? 0;
    if (kept(text, at, options)) continue;
    if (at > last) pieces.push({ kind: 'text', text: text.slice(last, at) });
    pieces.push(escapedPiece(match[0]));
    last = at + match[0].length;
  }
  if (last < text.length) pieces.push({ kind: 'text', text: text.slice(last) });
  return pieces;
}

/**
 * The text with its invisible and control characters written as escapes, for where only a
 * string fits (a title, an aria-label, an SVG label, a field's note).
 */
export function escapeInvisible(text: string, options: VisibleOptions = {}): string {
  if (!INVISIBLE.test(text)) return text;
  return splitInvisible(text, options)
    .map((piece) => piece.text)
    .join('');
}

/** A title for an escaped character: `U+202E RIGHT-TO-LEFT OVERRIDE: shows the text after it right to left. …` */
export function describeEscaped(piece: Extract<VisiblePiece, { kind: 'escaped' }>): string {
  return `${piece.code} ${piece.name}: ${piece.effect}. Shown escaped; the text holds this character itself.`;
}

/**
 * Whether any string or key of a JSON value holds a character `splitInvisible` escapes, for a
 * notice above arguments (with `lines`, the newlines and tabs of a multi-line value are not
 * counted: a file's content has them). Iterative: depth is not bounded by the stack.
 */
export function containsInvisible(value: unknown, options: VisibleOptions = {}): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'string') {
      if (hasInvisible(next, options)) return true;
    } else if (Array.isArray(next)) {
      for (const item of next) pending.push(item);
    } else if (next !== null && typeof next === 'object') {
      for (const [key, child] of Object.entries(next)) {
        if (hasInvisible(key)) return true;
        pending.push(child);
      }
    }
  }
  return false;
}
