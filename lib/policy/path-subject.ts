import path from 'node:path';
import type { PermissionSubject } from '../executor/types';
import { compilePathGlob, exactPathGlob } from './path-glob';

/**
 * The file tools' subject: the path relative to the workspace, normalized the way the tool will
 * resolve it (`./notes//a.md` and `notes/x/../a.md` are both `notes/a.md`), so that spelling a
 * path differently cannot dodge a rule. Specifiers are path globs (`compilePathGlob`: `notes/**`,
 * `*.md`, `src/**\/*.ts`); `*` stays inside one folder, `**` crosses folders, dotfiles match like
 * others, `\` makes the next character literal.
 * A path that leaves the workspace (absolute, or `..` after normalizing) is refused by the tool
 * itself; as a subject it stays as normalized, and no relative glob matches it.
 * The path is judged as written, not through symlinks: where the workspace holds `link → secrets`,
 * `link/key` is not `secrets/key` to a rule (the sandbox only keeps links inside the workspace).
 */
export function createPathSubject<I extends { path: string }>(): PermissionSubject<I> {
  return {
    describe: 'a path glob relative to the workspace, e.g. notes/** or *.md',
    of: (input) => normalizePath(input.path),
    exact: (input) => exactPathGlob(normalizePath(input.path)),
    compile(specifier) {
      const glob = normalizePath(specifier);
      if (path.posix.isAbsolute(glob)) {
        throw new Error(`"${specifier}" is absolute; write a glob relative to the workspace, e.g. notes/**`);
      }
      if (glob === '..' || glob.startsWith('../')) {
        throw new Error(`"${specifier}" points outside the workspace, where the file tools never go`);
      }
      return compilePathGlob(glob);
    },
  };
}

/** `./a//b/../c/` → `a/c`; `.` for the workspace itself. */
export function normalizePath(requested: string): string {
  const normalized = path.posix.normalize(requested);
  return normalized.length > 1 && normalized.endsWith('/') ? normalized.slice(0, -1) : normalized;
}
