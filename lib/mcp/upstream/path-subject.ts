import path from 'node:path';
import picomatch from 'picomatch';
import type { PermissionSubject } from '../../executor/types';

/**
 * The permission subject of every upstream MCP tool: its `path` argument, normalized
 * (`./notes//a.md` → `notes/a.md`), so that `fs__write_file(notes/**)` or
 * `fs__read_file(/srv/docs/**)` takes the calls on those paths. Specifiers are picomatch globs
 * matched against the path as the call gives it (relative globs match relative paths, absolute
 * ones absolute paths). A call without a string `path` has the empty subject, which no specifier
 * matches: only tool-wide rules (`fs__move_file`) take it.
 * One subject for all upstream tools: a rule may name a tool of a server not yet connected.
 */
export const upstreamPathSubject: PermissionSubject<unknown> = {
  describe: 'a glob on the tool\'s "path" argument, e.g. notes/** or /srv/docs/*.md',
  of(input) {
    const value = (input as { path?: unknown } | null)?.path;
    return typeof value === 'string' && value !== '' ? normalize(value) : '';
  },
  compile(specifier) {
    if (specifier.trim() === '') throw new Error('the glob is empty');
    const glob = normalize(specifier.trim());
    const isMatch = picomatch(glob, { dot: true });
    return (subject) => subject !== '' && isMatch(subject);
  },
};

function normalize(requested: string): string {
  const normalized = path.posix.normalize(requested);
  return normalized.length > 1 && normalized.endsWith('/') ? normalized.slice(0, -1) : normalized;
}
