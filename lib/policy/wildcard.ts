/**
 * Compiles a pattern where `*` stands for any text (spaces and `/` included) and everything else
 * is literal. Matching takes the literal parts in order, each at its first place after the last
 * one (which is exact for `*`-only patterns): no regular expression, so no backtracking, and a
 * long subject costs one scan per part.
 * @example compileWildcard('npm run *')('npm run build') // true
 */
export function compileWildcard(pattern: string): (subject: string) => boolean {
  const parts = pattern.split('*');
  if (parts.length === 1) return (subject) => subject === pattern;
  const head = parts[0] as string;
  const tail = parts[parts.length - 1] as string;
  const middle = parts.slice(1, -1).filter((part) => part !== '');
  const minLength = head.length + tail.length;
  return (subject) => {
    if (subject.length < minLength || !subject.startsWith(head) || !subject.endsWith(tail)) return false;
    let from = head.length;
    const end = subject.length - tail.length;
    for (const part of middle) {
      const at = subject.indexOf(part, from);
      if (at === -1 || at + part.length > end) return false;
      from = at + part.length;
    }
    return true;
  };
}
