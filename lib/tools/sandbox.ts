import { constants, type Dirent, promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
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
 *    a simple rule is easier for a model to follow than a subtle one), names of at most 255
 *    bytes and at most 4095 bytes in all. Nothing is percent- or Unicode-decoded.
 * 2. The workspace itself is resolved with `realpath`, so a workspace reached through a symlink
 *    (macOS `/tmp`) still compares correctly.
 * 3. Each existing component is `lstat`ed; a symlink is followed with `realpath` and must land
 *    inside the workspace. This covers the target and every parent, including the parents of a
 *    file that does not exist yet. Dangling symlinks are refused: writing through one would
 *    create its target, wherever it points.
 *
 * What remains is a race: a process that can create symlinks in the workspace could swap a
 * checked folder for a link before the caller opens the path. Callers close it by opening
 * through `openWorkspaceFolder`, which walks the checked path again one folder at a time
 * without following any symlink.
 * @example const { absolute } = await resolveInWorkspace('/srv/ws', 'notes/todo.md');
 */
export async function resolveInWorkspace(workspace: string, requested: string): Promise<WorkspacePath> {
  checkPathSyntax(requested);
  const root = await realWorkspace(workspace);
  const relative = path.relative(root, path.resolve(root, requested)) || '.';
  const segments = relative === '.' ? [] : relative.split(path.sep);
  checkPathLength(root, relative, segments);

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

/** The open folder of a checked path; names inside it are reached through its descriptor, not its path. */
export interface WorkspaceFolder {
  /**
   * A path naming `name` inside this folder as it was opened (`/proc/self/fd/<fd>/<name>`):
   * the kernel starts from the open folder, so a folder above it renamed or swapped for a
   * symlink since cannot redirect it, as `openat` would not be.
   */
  at(name: string): string;
  close(): Promise<void>;
}

const PROC_FD = '/proc/self/fd';
let procFd: Promise<boolean> | undefined;

/** Whether this system has `/proc/self/fd` (Linux); elsewhere callers fall back to path checks. */
export function hasProcFd(): Promise<boolean> {
  procFd ??= fs.stat(PROC_FD).then(
    (stats) => stats.isDirectory(),
    () => false,
  );
  return procFd;
}

/**
 * Opens the folder that holds `target` (from `resolveInWorkspace`) by walking from the workspace
 * root one component at a time, each opened with `O_DIRECTORY | O_NOFOLLOW` relative to the one
 * before: if any folder on the way was swapped for a symlink after the check, the walk fails
 * (`SECURITY_VIOLATION`) instead of following it. With `create`, missing folders are made on the
 * way, each inside the folder just opened. Null where `/proc/self/fd` is missing (not Linux).
 * @example const folder = await openWorkspaceFolder(target, { create: false }); fs.open(folder.at('a.txt'), flags)
 */
export async function openWorkspaceFolder(
  target: WorkspacePath,
  options: { create: boolean },
): Promise<WorkspaceFolder | null> {
  if (!(await hasProcFd())) return null;
  const folder = path.relative(target.root, path.dirname(target.absolute));
  const segments = folder === '' ? [] : folder.split(path.sep);
  const flags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
  let current = await fs.open(target.root, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    for (const [index, segment] of segments.entries()) {
      const at = `${PROC_FD}/${current.fd}/${segment}`;
      const shown = segments.slice(0, index + 1).join('/');
      const next = await fs
        .open(at, flags)
        .catch(async (error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT' && options.create) {
            await fs.mkdir(at).catch((mkdirError: NodeJS.ErrnoException) => {
              if (mkdirError.code !== 'EEXIST') throw mkdirError;
            });
            return fs.open(at, flags);
          }
          throw error;
        })
        .catch(async (error: NodeJS.ErrnoException) => {
          if (error.code !== 'ENOTDIR' && error.code !== 'ELOOP') throw error;
          const swapped = await fs.lstat(at).then(
            (stats) => stats.isSymbolicLink(),
            () => false,
          );
          if (swapped) throw violation(`"${shown}" was replaced by a symbolic link while it was being opened.`);
          throw ToolError.parameter('NOT_A_DIRECTORY', `"${shown}" is not a folder.`);
        });
      await current.close();
      current = next;
    }
  } catch (error) {
    await current.close();
    throw error;
  }
  const handle: FileHandle = current;
  return { at: (name) => `${PROC_FD}/${handle.fd}/${name}`, close: () => handle.close() };
}

/**
 * The entries of the checked folder `target`, read through a descriptor opened like
 * `openWorkspaceFolder` does (the folder itself with O_NOFOLLOW too), so a folder swapped for a
 * symlink since the check does not list what is outside.
 */
export async function listWorkspaceFolder(target: WorkspacePath): Promise<Dirent[]> {
  const flags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
  if (target.absolute === target.root || !(await hasProcFd()))
    return fs.readdir(target.absolute, { withFileTypes: true });
  const folder = (await openWorkspaceFolder(target, { create: false })) as WorkspaceFolder;
  let handle: FileHandle;
  try {
    handle = await fs.open(folder.at(path.basename(target.absolute)), flags).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOTDIR' || error.code === 'ELOOP') {
        throw violation(`"${target.relative}" changed while it was being opened.`);
      }
      throw error;
    });
  } finally {
    await folder.close();
  }
  try {
    return await fs.readdir(`${PROC_FD}/${handle.fd}`, { withFileTypes: true });
  } finally {
    await handle.close();
  }
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

/** Linux's limits (PATH_MAX, NAME_MAX), checked up front: the answer does not depend on how far a walk gets. */
const MAX_PATH_BYTES = 4095;
const MAX_NAME_BYTES = 255;

function checkPathLength(root: string, relative: string, segments: string[]): void {
  const long = segments.find((segment) => Buffer.byteLength(segment) > MAX_NAME_BYTES);
  if (long !== undefined) {
    throw ToolError.parameter(
      'INVALID_PATH',
      `A name in the path is ${Buffer.byteLength(long)} bytes long; names can be at most ${MAX_NAME_BYTES}.`,
    );
  }
  if (Buffer.byteLength(path.join(root, relative)) > MAX_PATH_BYTES) {
    throw ToolError.parameter(
      'INVALID_PATH',
      `The path is too long (at most ${MAX_PATH_BYTES} bytes with the workspace folder).`,
    );
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
