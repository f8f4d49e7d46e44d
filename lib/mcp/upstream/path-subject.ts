import path from 'node:path';
import type { PermissionSubject } from '../../executor/types';
import { compilePathGlob } from '../../policy/path-glob';
import { pathArguments, resolvePathArgument, type ServerPaths } from './path-arguments';

/** What the path subject of one upstream tool knows: its server's paths, and the tool's input schema now. */
export interface UpstreamPathContext {
  paths: ServerPaths;
  /** The tool's JSON Schema as its server lists it now; undefined before it has (a rule compiled early). */
  schema(): unknown;
}

/**
 * The permission subject of an upstream MCP tool: every path its call takes (`pathArguments`:
 * `path`, `paths[]`, `source`, `destination`… and fields the schema marks as paths), each
 * resolved against the server's roots (`resolvePathArgument`: `secret/a` with root `/srv` is
 * `/srv/secret/a`, `./x/../secret/a` too). A deny or ask rule takes the call when any of its
 * paths matches, an allow rule only when all do (`each`). Specifiers are path globs (`compilePathGlob`): an
 * absolute glob is matched against the absolute paths, a relative one against each path relative
 * to each root (`notes/**` is `<root>/notes/**`). A call without paths has none: only tool-wide
 * rules (`fs__move_file`) take it. `of` is the call's path when it has exactly one, else ''.
 * The paths are judged as written, not through symlinks.
 */
export function createUpstreamPathSubject(context: UpstreamPathContext): PermissionSubject<unknown> {
  const { roots } = context.paths;
  const each = (input: unknown) =>
    pathArguments(input, context.schema()).flatMap((value) => resolvePathArgument(value, context.paths));
  return {
    describe: "a glob on every path the call takes, e.g. /srv/docs/** or notes/** (under the server's folder)",
    of(input) {
      const paths = each(input);
      return paths.length === 1 ? (paths[0] as string) : '';
    },
    each,
    compile(specifier) {
      if (specifier.trim() === '') throw new Error('the glob is empty');
      const glob = normalize(specifier.trim());
      const isMatch = compilePathGlob(glob);
      return (subject) => subject !== '' && matchesPath(subject, path.posix.isAbsolute(glob), isMatch, roots);
    },
  };
}

/**
 * Whether `isMatch` (a glob, absolute or not) takes the path `subject`: as it is, or, for a
 * relative glob and an absolute path, as the path relative to any root (`.` for the root itself).
 */
function matchesPath(subject: string, absoluteGlob: boolean, isMatch: (p: string) => boolean, roots: string[]) {
  if (isMatch(subject)) return true;
  if (absoluteGlob || !path.posix.isAbsolute(subject)) return false;
  return roots.some((root) => isMatch(path.posix.relative(root, subject) || '.'));
}

function normalize(requested: string): string {
  const normalized = path.posix.normalize(requested);
  return normalized.length > 1 && normalized.endsWith('/') ? normalized.slice(0, -1) : normalized;
}
