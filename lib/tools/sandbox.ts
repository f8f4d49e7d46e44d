import { promises as fs } from 'node:fs';
import path from 'node:path';
import { ToolError } from '../executor/errors';
import { fileError } from './file-errors';

/** A path a model asked for, checked to lie inside the workspace. */
export interface WorkspacePath {
  /** The workspace folder with its own symlinks resolved. */
  root: string;
  /** Absolute path with every existing symlink resolved; the part that does not exist yet appended. */
  absolute: string;
  /** The requested path, normalized and relative to the workspace (`.` for the workspace itself). */
  relative: string;
  /** Whether something (file, folder, anything) exists there now. */
  exists: boolean;
}

/**
 * Resolves `requested` inside `workspace`, or throws a `SECURITY_VIOLATION` ToolError.
 *
 * 1. Lexical checks: no NUL byte, not absolute, no `..` segment (even one that would stay inside:
 *    a simple rule is easier for a model to follow than a subtle one).
 * 2. The workspace itself is resolved with `realpath`, so a workspace reached through a symlink
 *    (macOS `/tmp`) still compares correctly.
 * 3. Each existing component is `lstat`ed; a symlink is followed with `realpath` and must land
 *    inside the workspace. This covers the target and every parent, including the parents of a
 *    file that does not exist yet. Dangling symlinks are refused: writing through one would
 *    create its target, wherever it points.
 *
 * What remains is a race: a process that can create symlinks in the workspace could swap a
 * checked folder for a link before the caller opens the path. Callers narrow that window
 * (`O_NOFOLLOW`, re-checking after open, rename instead of writing through a path).
 * @example const { absolute } = await resolveInWorkspace('/srv/ws', 'notes/todo.md');
 */
export async function resolveInWorkspace(workspace: string, requested: string): Promise<WorkspacePath> {
  checkPathSyntax(requested);
  const root = await realWorkspace(workspace);
  const relative = path.relative(root, path.resolve(root, requested)) || '.';
  const segments = relative === '.' ? [] : relative.split(path.sep);

  let current = root;
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index] as string;
    const next = path.join(current, segment);
    const shown = segments.slice(0, index + 1).join('/');
    let stats: Awaited<ReturnType<typeof fs.lstat>>;
    try {
      stats = await fs.lstat(next);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') {
        return { root, relative, absolute: path.join(current, ...segments.slice(index)), exists: false };
      }
      if (code === 'ENOTDIR') {
        throw ToolError.parameter(
          'NOT_A_DIRECTORY',
          `"${segments.slice(0, index).join('/')}" is a file, so "${relative}" cannot exist inside it.`,
        );
      }
      throw fileError(error, shown);
    }
    current = stats.isSymbolicLink() ? await followLink(root, next, shown) : next;
  }
  return { root, relative, absolute: current, exists: true };
}

/** True when `candidate` is `root` or lies below it. Both must be absolute and normalized. */
export function isInside(root: string, candidate: string): boolean {
  if (candidate === root) return true;
  const prefix = root.endsWith(path.sep) ? root : root + path.sep;
  return candidate.startsWith(prefix);
}

function checkPathSyntax(requested: string): void {
  if (requested.length === 0) {
    throw ToolError.parameter('INVALID_PATH', 'The path is empty; use "." for the workspace folder.');
  }
  if (requested.includes('\0')) {
    throw violation('The path contains a NUL byte.');
  }
  if (path.isAbsolute(requested)) {
    throw violation(`"${requested}" is absolute; use a path relative to the workspace folder.`);
  }
  if (requested.split(/[\\/]/).includes('..')) {
    throw violation(`"${requested}" contains a ".." segment; paths must stay inside the workspace folder.`);
  }
}

async function realWorkspace(workspace: string): Promise<string> {
  try {
    return await fs.realpath(workspace);
  } catch (error) {
    throw new ToolError({
      code: 'WORKSPACE_UNAVAILABLE',
      kind: 'internal',
      message: `The workspace folder is not available (${(error as NodeJS.ErrnoException).code ?? 'error'}).`,
      cause: error,
    });
  }
}

async function followLink(root: string, link: string, shown: string): Promise<string> {
  let target: string;
  try {
    target = await fs.realpath(link);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ELOOP') {
      throw violation(`"${shown}" is a symbolic link that points to nothing usable; it is not followed.`);
    }
    throw fileError(error, shown);
  }
  if (!isInside(root, target)) {
    throw violation(`"${shown}" is a symbolic link that points outside the workspace folder.`);
  }
  return target;
}

function violation(message: string): ToolError {
  return ToolError.parameter('SECURITY_VIOLATION', message, {
    hint: 'Use a relative path to a file inside the workspace folder.',
  });
}
