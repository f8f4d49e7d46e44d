/** Characters that mean nothing to sh, anywhere in a word. */
const PLAIN = /^[A-Za-z0-9_\-+=.,/:@%]+$/;

/**
 * One argument as sh reads it back: as it is when plain, else in single quotes (a `'` inside
 * written `'\''`). The first word of a command is quoted when it holds `=` too, which sh would
 * take for a variable assignment.
 * @example quoteForSh('fix: a "b"') // `'fix: a "b"'`
 */
export function quoteForSh(argument: string, first = false): string {
  if (PLAIN.test(argument) && !(first && argument.includes('='))) return argument;
  return `'${argument.replaceAll("'", "'\\''")}'`;
}

/**
 * An argv as one sh command line that runs exactly it.
 * @example shellLine(['git', 'commit', '-m', "it's done"]) // `git commit -m 'it'\''s done'`
 */
export function shellLine(argv: readonly string[]): string {
  return argv.map((argument, index) => quoteForSh(argument, index === 0)).join(' ');
}
