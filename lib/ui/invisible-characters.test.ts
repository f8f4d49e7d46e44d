import { describe, expect, it } from 'vitest';
import { crowding } from '../hardening/testing/machine-pace';
import {
  containsInvisible,
  describeEscaped,
  escapeInvisible,
  hasInvisible,
  splitInvisible,
  type VisiblePiece,
} from './invisible-characters';

const shown = (pieces: VisiblePiece[]) =>
  pieces.map((piece) => (piece.kind === 'text' ? piece.text : `[${piece.text}]`));

describe('splitInvisible', () => {
  it('escapes the right-to-left override that makes report-\\u202Efdp.sh read as report-hs.pdf', () => {
    const pieces = splitInvisible('report-\u202Efdp.sh');
    expect(shown(pieces)).toEqual(['report-', '[\\u202E]', 'fdp.sh']);
    const escaped = pieces[1]!;
    expect(escaped).toMatchObject({ kind: 'escaped', char: '\u202E', code: 'U+202E', name: 'RIGHT-TO-LEFT OVERRIDE' });
    if (escaped.kind !== 'escaped') throw new Error('not escaped');
    expect(describeEscaped(escaped)).toMatch(
      /^U\+202E RIGHT-TO-LEFT OVERRIDE: shows the text after it right to left\./,
    );
  });

  it('leaves text without such characters as one piece, the same string', () => {
    const text = 'notes/a b.txt — ünïcode, עברית, 日本語, emoji 👍🏽 ❤️';
    const pieces = splitInvisible(text);
    expect(pieces).toEqual([{ kind: 'text', text }]);
    expect(pieces[0]!.text).toBe(text);
    expect(escapeInvisible(text)).toBe(text);
    expect(hasInvisible(text)).toBe(false);
  });

  it('escapes every bidirectional control, zero-width character and separator of the list', () => {
    const codes = [
      0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200b, 0x200c, 0x200d, 0x200e, 0x200f,
      0x2028, 0x2029, 0xfeff, 0xad, 0x061c, 0x2060, 0x180e, 0x3164, 0x115f,
    ];
    for (const code of codes) {
      const char = String.fromCodePoint(code);
      const pieces = splitInvisible(`a${char}b`);
      const hex = code.toString(16).toUpperCase().padStart(4, '0');
      expect(shown(pieces), hex).toEqual(['a', `[\\u${hex}]`, 'b']);
      expect(pieces[1], hex).toMatchObject({ code: `U+${hex}`, char });
    }
  });

  it('escapes control characters, with JSON short escapes where there is one', () => {
    expect(escapeInvisible('a\nb\tc\rd\u0000e\u001Bf\u007Fg\u0085h')).toBe(
      'a\\nb\\tc\\rd\\u0000e\\u001Bf\\u007Fg\\u0085h',
    );
  });

  it('escapes tag characters (hidden text) and lone surrogates by code point', () => {
    const hidden = 'ok\u{E0041}\u{E0042}';
    expect(shown(splitInvisible(hidden))).toEqual(['ok', '[\\u{E0041}]', '[\\u{E0042}]']);
    expect(splitInvisible(hidden)[1]).toMatchObject({ code: 'U+E0041', name: 'TAG CHARACTER' });
    expect(escapeInvisible('x\uD800y')).toBe('x\\uD800y');
  });

  it('keeps newlines, tabs and \\r\\n in multi-line text, and escapes the rest', () => {
    const text = 'line 1\r\n\tline 2\nrm -rf \u202E/\rover';
    expect(shown(splitInvisible(text, { lines: true }))).toEqual([
      'line 1\r\n\tline 2\nrm -rf ',
      '[\\u202E]',
      '/',
      '[\\r]',
      'over',
    ]);
    expect(hasInvisible('a\nb\tc', { lines: true })).toBe(false);
    expect(hasInvisible('a\nb\tc')).toBe(true);
    expect(hasInvisible('a\u200Bb', { lines: true })).toBe(true);
  });

  it('gives one piece per character, so adjacent controls each show', () => {
    expect(shown(splitInvisible('\u202E\u2066x\u2069'))).toEqual(['[\\u202E]', '[\\u2066]', 'x', '[\\u2069]']);
  });

  it('keeps a zero width joiner inside an emoji sequence, and escapes one between letters', () => {
    for (const emoji of ['👩\u200D💻', '👨🏽\u200D🚀', '🏳️\u200D🌈', '👨\u200D👩\u200D👧']) {
      expect(splitInvisible(`team ${emoji}`), emoji).toEqual([{ kind: 'text', text: `team ${emoji}` }]);
    }
    expect(shown(splitInvisible('pass\u200Dword'))).toEqual(['pass', '[\\u200D]', 'word']);
    expect(shown(splitInvisible('👩\u200Dx'))).toEqual(['👩', '[\\u200D]', 'x']);
    expect(shown(splitInvisible('\u200D💻'))).toEqual(['[\\u200D]', '💻']);
  });

  it('reads 200 KB of text with characters to escape in one linear pass', () => {
    const text = 'abc\u200B'.repeat(50_000);
    const started = performance.now();
    expect(splitInvisible(text)).toHaveLength(100_000);
    expect(performance.now() - started).toBeLessThan(1_000 * crowding());
  });
});

describe('containsInvisible', () => {
  it('finds such a character in any string or key of arguments, at any depth', () => {
    expect(containsInvisible({ path: 'notes/a.txt', nested: [{ x: 'plain 👩\u200D💻' }] })).toBe(false);
    expect(containsInvisible({ nested: [{ x: ['report-\u202Efdp.sh'] }] })).toBe(true);
    expect(containsInvisible({ 'pa\u200Bth': 'x' })).toBe(true);
    expect(containsInvisible('rm -rf \u2066/')).toBe(true);
    let deep: unknown = 'a\u00ADb';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(containsInvisible(deep)).toBe(true);
    expect(containsInvisible(null)).toBe(false);
  });

  it('leaves the newlines and tabs of multi-line values alone with `lines`, never a hidden character', () => {
    const file = { path: 'report.md', content: '# Report\n\n\tAll good.\r\n' };
    expect(containsInvisible(file)).toBe(true);
    expect(containsInvisible(file, { lines: true })).toBe(false);
    expect(containsInvisible({ content: 'ok\nreport-\u202Efdp.sh\n' }, { lines: true })).toBe(true);
    expect(containsInvisible({ content: 'a\rb' }, { lines: true })).toBe(true);
  });
});
