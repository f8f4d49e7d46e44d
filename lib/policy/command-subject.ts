import type { PermissionSubject } from '../executor/types';
import { compileWildcard } from './wildcard';

/**
 * `run_shell`'s subject: the argv joined by single spaces (`git status`). A specifier without `*`
 * matches that command exactly; `*` matches any text, and a trailing ` *` matches any further
 * arguments or none (`npm run *` matches `npm run build` and `npm run`, not `npm runner`).
 * Joining loses argument boundaries (`["git", "a b"]` reads `git a b`); the shell allowlist still
 * decides which program may run at all.
 */
export function createCommandSubject<I extends { command: string[] }>(): PermissionSubject<I> {
  return {
    describe: 'the command and its arguments joined by spaces, e.g. git status or npm run *',
    of: (input) => input.command.join(' '),
    compile(specifier) {
      if (specifier.endsWith(' *')) {
        const prefix = specifier.slice(0, -2);
        const withArguments = compileWildcard(specifier);
        const bare = compileWildcard(prefix);
        return (subject) => withArguments(subject) || bare(subject);
      }
      return compileWildcard(specifier);
    },
  };
}
