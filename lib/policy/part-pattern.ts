/**
 * The one grammar of `*` in permission rules and fault rules' tool globs. A pattern is matched part
 * by part (a path segment, a command argument, a URL's host, a tool name): within one part `*`
 * matches any characters, none included, and `\` makes the next character literal. Matching takes
 * the literal runs in order, each at its first place after the last one: no regular expression,
 * no backtracking, one scan of the part per literal run.
 */

/** One character of a pattern once its escapes are read. */
export interface PatternChar {
  char: string;
  /** Written without a `\` before it, so it may mean something: a `*`, a quote in a command. */
  special: boolean;
}

/** A pattern over one part: its literal runs, with a `*` between each two (`*.md` → `['', '.md']`). */
export type PartPattern = readonly string[];

/**
 * Reads a pattern's escapes: `\` makes the next character literal (`\*`, `\\`, `\?`, `\ `). A `\`
 * before a letter or a digit, or at the end, is refused, so `\n` never silently means `n`.
 * @example readEscapes('a\\*') // [{ char: 'a', special: true }, { char: '*', special: false }]
 */
export function readEscapes(pattern: string): PatternChar[] {
  const chars: PatternChar[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i] as string;
    if (char !== '\\') {
      chars.push({ char, special: true });
      continue;
    }
    const next = pattern[i + 1];
    if (next === undefined) throw new Error('it ends with a lone "\\"; write "\\\\" for a backslash');
    if (/[A-Za-z0-9]/.test(next)) {
      throw new Error(
        `"\\${next}" is no escape: "\\" makes only the punctuation after it literal (\\* \\\\ \\? …); write "\\\\" for a backslash`,
      );
    }
    chars.push({ char: next, special: false });
    i++;
  }
  return chars;
}

const EXTGLOB_OPENERS = '@+!?*';

/**
 * Refuses glob syntax this grammar does not have, naming it and how to write it literally: extglob
 * (`@(` `+(` `!(` `?(` `*(`), character classes, braces, `?`, and with `negation` a leading `!`.
 * Only characters written without `\` count.
 */
export function refuseGlobSyntax(chars: readonly PatternChar[], options: { negation?: boolean } = {}): void {
  chars.forEach(({ char, special }, i) => {
    if (!special) return;
    const next = chars[i + 1];
    if (EXTGLOB_OPENERS.includes(char) && next?.special && next.char === '(') {
      throw new Error(
        `extglob "${char}(…)" is not supported: write one rule per alternative, or "\\(" for a literal "("`,
      );
    }
    if (char === '?')
      throw new Error('"?" (any one character) is not supported: use "*", or write "\\?" for a literal "?"');
    if (char === '[') {
      throw new Error(
        'character classes "[…]" are not supported: write one rule per character, or "\\[" for a literal "["',
      );
    }
    if (char === '{') {
      throw new Error('braces "{a,b}" are not supported: write one rule per alternative, or "\\{" for a literal "{"');
    }
    if (char === '!' && i === 0 && options.negation) {
      throw new Error(
        'a leading "!" (negation) is not supported: write a deny rule instead, or "\\!" for a literal "!"',
      );
    }
  });
}

/**
 * The part pattern of `chars`. Two `*` in a row are refused: they would mean no more than one
 * (`what` names the part in the message, `hint` says what to write instead).
 */
export function partOf(chars: readonly PatternChar[], what: string, hint = 'write one "*"'): PartPattern {
  const literals: string[] = [''];
  chars.forEach(({ char, special }, i) => {
    if (special && char === '*') {
      const next = chars[i + 1];
      if (next?.special && next.char === '*') throw new Error(`"**" means nothing more than "*" in ${what}: ${hint}`);
      literals.push('');
    } else {
      literals[literals.length - 1] += char;
    }
  });
  return literals;
}

/**
 * Whether `text` matches a part pattern. `starExcludes` lists characters a `*` may not match
 * (a host's `*` never takes `:`, `/` or `@`). Each literal run is placed at its first occurrence:
 * a later one would only leave less room for the rest, and more text for a `*` to cover.
 * @example matchPart(['', '.md'], 'a.md') // true
 */
export function matchPart(pattern: PartPattern, text: string, starExcludes = ''): boolean {
  const head = pattern[0] as string;
  if (pattern.length === 1) return text === head;
  const tail = pattern[pattern.length - 1] as string;
  if (text.length < head.length + tail.length || !text.startsWith(head) || !text.endsWith(tail)) return false;
  let from = head.length;
  const end = text.length - tail.length;
  for (let i = 1; i < pattern.length - 1; i++) {
    const literal = pattern[i] as string;
    if (literal === '') continue;
    const at = text.indexOf(literal, from);
    if (at === -1 || at + literal.length > end || holdsAny(text, from, at, starExcludes)) return false;
    from = at + literal.length;
  }
  return !holdsAny(text, from, end, starExcludes);
}

function holdsAny(text: string, from: number, to: number, chars: string): boolean {
  if (chars === '') return false;
  for (let i = from; i < to; i++) if (chars.includes(text[i] as string)) return true;
  return false;
}

/**
 * Escapes `text` so that it reads as itself in a path or tool-name pattern: `\`, `*`, `?`, `[`, `{`,
 * a `(` after `@ + !`, and a leading `!`.
 * @example escapeLiteral('w/*') // 'w/\\*'
 */
export function escapeLiteral(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    const special =
      '\\*?[{'.includes(char) || (char === '(' && '@+!'.includes(text[i - 1] ?? '')) || (char === '!' && i === 0);
    out += special ? `\\${char}` : char;
  }
  return out;
}
