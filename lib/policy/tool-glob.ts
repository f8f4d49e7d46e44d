import { matchPart, partOf, readEscapes, refuseGlobSyntax } from './part-pattern';

/**
 * Compiles a glob over tool names (fault rules' `tool`): `*` matches any characters of the name
 * (`http_*`, `fs__*_file`), `\` makes the next character literal, a name without `*` matches itself.
 * Throws, naming it, for glob syntax it does not have (braces, classes, extglob, `?`, a leading `!`).
 * @example compileToolGlob('fs__*')('fs__read_file') // true
 */
export function compileToolGlob(glob: string): (name: string) => boolean {
  const chars = readEscapes(glob);
  refuseGlobSyntax(chars, { negation: true });
  const pattern = partOf(chars, 'a tool name');
  if (pattern.length === 1) return (name) => name === pattern[0];
  return (name) => matchPart(pattern, name);
}
