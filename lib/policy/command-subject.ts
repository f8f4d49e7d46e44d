import type { PermissionSubject } from '../executor/types';
import { blocksOf, matchSequence } from './match-sequence';
import { matchPart, type PartPattern, type PatternChar, partOf, readEscapes, refuseGlobSyntax } from './part-pattern';

const ANY_ARGUMENTS = Symbol('*');
type Word = PartPattern | typeof ANY_ARGUMENTS;
const isAnyArguments = (word: Word): word is typeof ANY_ARGUMENTS => word === ANY_ARGUMENTS;

/** What separates words in a command specifier (outside quotes). */
const SPACE = /^[ \t\n\r\v\f]$/;
/** An argument `exact` writes as it is; any other is written in double quotes. */
const PLAIN_ARGUMENT = /^[A-Za-z0-9_\-+=.,/:@%^~]+$/;

/**
 * `run_shell`'s subject: the argv. `of` shows it joined by spaces (`git status`); rules match the
 * arguments themselves, so `["git", "a b"]` is two arguments, never three. A specifier is words
 * separated by spaces, each matching one argument, in order:
 * - a `*` standing alone as a word matches any number of whole arguments, none included, wherever
 *   it stands: `git * push *` takes `git push`, `git -C dir push origin` and `git -c k=v push`;
 * - a `*` inside a word matches characters within that one argument (`--out=*`, `ls*`);
 * - quotes (`"a b"`, `'a b'`) keep spaces inside one word and make everything in them literal
 *   but `\`; `\` makes the next character literal (`\*`, `\"`, `\\`).
 * The shell allowlist still decides which program may run at all.
 */
export function createCommandSubject<I extends { command: string[] }>(): PermissionSubject<I> {
  return {
    describe: 'the command as words, each matching one argument; a lone * matches any arguments: git * push *',
    of: (input) => input.command.join(' '),
    exact: (input) => input.command.map(quoteArgument).join(' '),
    compile(specifier) {
      const blocks = blocksOf(parseCommand(specifier), isAnyArguments);
      return (_subject, input) => matchSequence(blocks, input.command, (word, argument) => matchPart(word, argument));
    },
  };
}

/** The words of a command specifier. */
function parseCommand(specifier: string): Word[] {
  const words: { chars: PatternChar[]; quoted: boolean }[] = [];
  let word: { chars: PatternChar[]; quoted: boolean } | null = null;
  let quote: string | null = null;
  for (const c of readEscapes(specifier)) {
    if (quote !== null) {
      if (c.special && c.char === quote) quote = null;
      else word?.chars.push({ char: c.char, special: false });
    } else if (c.special && SPACE.test(c.char)) {
      word = null;
    } else {
      if (!word) {
        word = { chars: [], quoted: false };
        words.push(word);
      }
      if (c.special && (c.char === '"' || c.char === "'")) {
        quote = c.char;
        word.quoted = true;
      } else {
        word.chars.push(c);
      }
    }
  }
  if (quote !== null) throw new Error(`a ${quote} is not closed`);
  if (words.length === 0) throw new Error('the command is empty');
  return words.map(({ chars, quoted }): Word => {
    if (!quoted && chars.length === 1 && chars[0]?.special && chars[0].char === '*') return ANY_ARGUMENTS;
    refuseGlobSyntax(chars);
    return partOf(chars, 'an argument', 'a lone "*" matches any number of arguments, a "*" in a word any characters');
  });
}

/** `a b` → `"a b"`, `*` → `"*"`, `say "hi"` → `"say \"hi\""`; a plain argument as it is. */
function quoteArgument(argument: string): string {
  return PLAIN_ARGUMENT.test(argument) ? argument : `"${argument.replace(/[\\"]/g, '\\$&')}"`;
}
