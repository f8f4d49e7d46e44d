import { randomBytes } from 'node:crypto';
import { constants, promises as fs, type Stats } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { defineTool, type ZodTool } from '../executor/define-tool';
import { ToolError } from '../executor/errors';
import { createPathSubject } from '../policy/path-subject';
import { fileChange } from './file-change';
import { fileError } from './file-errors';
import { formatBytes } from './format-bytes';
import { writeFileDescriber } from './previews';
import { isInside, openWorkspaceFolder, resolveInWorkspace, type WorkspacePath } from './sandbox';

export const DEFAULT_MAX_WRITE_BYTES = 1024 * 1024;

export interface WriteFileOptions {
  /** The folder the tool may write into; nothing outside it is reachable. */
  workspace: string;
  /** Larger contents are refused with SIZE_EXCEEDED. Default 1 MiB. */
  maxBytes?: number;
}

const inputSchema = z.object({
  path: z
    .string()
    .min(1)
    .max(4096)
    .describe('Path of the file relative to the workspace folder, e.g. "notes/todo.md". Missing folders are created.'),
  content: z.string().describe('The complete new content of the file, as UTF-8 text. Replaces any existing content.'),
});

export type WriteFileInput = z.infer<typeof inputSchema>;

export interface WriteFileOutput {
  /** The path as normalized inside the workspace. */
  path: string;
  /** Bytes written (UTF-8). */
  bytes: number;
  /** True when the file did not exist before. */
  created: boolean;
}

/**
 * The `write_file` tool: creates or replaces a text file inside the workspace, atomically.
 *
 * 1. The content size is checked (SIZE_EXCEEDED) and the path resolved by `resolveInWorkspace`,
 *    which also checks the parents of a file that does not exist yet.
 * 2. The target's folder is opened by walking the checked path again from the workspace root,
 *    one folder at a time without following symlinks (`openWorkspaceFolder`), creating missing
 *    ones on the way: a folder swapped for a symlink since the check is refused, not followed.
 * 3. Through that folder's descriptor, the content goes to a temporary file (created
 *    exclusively, never through a symlink), is flushed to disk, and renamed over the target. Readers see the old
 *    file or the new one, never half of it; a rename replaces a symlink put in the target's
 *    place instead of writing through it. An existing file keeps its permissions.
 * @example createWriteFileTool({ workspace: '/srv/ws' }).execute({ path: 'a.txt', content: 'hi' }, ctx)
 */
export function createWriteFileTool(options: WriteFileOptions): ZodTool<WriteFileInput, WriteFileOutput> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_WRITE_BYTES;
  return defineTool({
    name: 'write_file',
    description: [
      'Create or overwrite a text file in the workspace folder with the given content (the whole file).',
      'Paths are relative to the workspace ("notes/todo.md"); absolute paths and ".." are refused.',
      `Missing folders are created. Content is limited to ${formatBytes(maxBytes)}.`,
      'Returns the normalized path, the bytes written and whether the file was created.',
    ].join(' '),
    inputSchema,
    sideEffect: 'write',
    permissionSubject: createPathSubject(),
    // Every file it writes stays in the workspace: an edited path keeps a recorded secret on this machine.
    destination: () => 'the workspace',
    // A pending write shows its diff against the file on disk now.
    describe: {
      ...writeFileDescriber,
      async previewNow(args, scrub) {
        const preview = writeFileDescriber.preview(args);
        if (preview?.kind !== 'file') return preview;
        const change = await fileChange(options.workspace, preview.path, args.content as string, scrub);
        return { ...preview, change };
      },
    },
    timeoutMs: 10_000,
    // A write that failed halfway is not retried blindly; the model decides.
    retry: { maxAttempts: 1 },
    async execute({ path: requested, content }, ctx) {
      const bytes = Buffer.byteLength(content, 'utf8');
      if (bytes > maxBytes) {
        throw ToolError.parameter(
          'SIZE_EXCEEDED',
          `The content is ${formatBytes(bytes)}; files over ${formatBytes(maxBytes)} cannot be written.`,
          { details: { bytes, maxBytes } },
        );
      }
      if (/[\\/]$/.test(requested)) {
        throw ToolError.parameter('IS_A_DIRECTORY', `"${requested}" ends with "/"; give the path of a file.`);
      }
      try {
        const target = await resolveInWorkspace(options.workspace, requested);
        const folder = await openWorkspaceFolder(target, { create: true });
        if (!folder) return await writeByPath(target, content, bytes, ctx.signal);
        try {
          const name = folder.at(path.basename(target.absolute));
          const existing = await fs.lstat(name).catch((error: NodeJS.ErrnoException) => {
            if (error.code === 'ENOENT') return null;
            throw error;
          });
          const mode = existing ? existingFileMode(existing, target.relative) : undefined;
          await writeAtomically(name, content, mode, ctx.signal);
          return { path: target.relative, bytes, created: existing === null };
        } finally {
          await folder.close();
        }
      } catch (error) {
        if (ctx.signal.aborted) throw ctx.signal.reason;
        throw fileError(error, requested);
      }
    },
  });
}

/** Where /proc/self/fd is missing (not Linux): by path, the folder re-checked after it is made. */
async function writeByPath(target: WorkspacePath, content: string, bytes: number, signal: AbortSignal) {
  const mode = target.exists ? existingFileMode(await fs.lstat(target.absolute), target.relative) : undefined;
  const folder = path.dirname(target.absolute);
  await fs.mkdir(folder, { recursive: true });
  const realFolder = await fs.realpath(folder);
  if (realFolder !== folder || !isInside(target.root, realFolder)) {
    throw ToolError.parameter('SECURITY_VIOLATION', `The folder of "${target.relative}" changed while writing.`);
  }
  await writeAtomically(target.absolute, content, mode, signal);
  return { path: target.relative, bytes, created: !target.exists };
}

function existingFileMode(stats: Stats, shown: string): number {
  if (stats.isDirectory()) {
    throw ToolError.parameter('IS_A_DIRECTORY', `"${shown}" is a folder; give the path of a file inside it.`);
  }
  if (!stats.isFile()) {
    throw ToolError.parameter('NOT_A_FILE', `"${shown}" is not a regular file (it is a device, socket or pipe).`);
  }
  return stats.mode & 0o7777;
}

async function writeAtomically(target: string, content: string, mode: number | undefined, signal: AbortSignal) {
  // The target's name, shortened so the temporary name stays within NAME_MAX (255 bytes) too.
  const temporary = path.join(
    path.dirname(target),
    `.${leadingBytes(path.basename(target), 200)}.${randomBytes(6).toString('hex')}.toolscope-tmp`,
  );
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  const handle = await fs.open(temporary, flags, mode ?? 0o666);
  let renamed = false;
  try {
    await handle.writeFile(content, { encoding: 'utf8', signal });
    // The mode passed to open is masked by the umask; an existing file's mode is restored as it was.
    if (mode !== undefined) await handle.chmod(mode);
    await handle.sync();
    await handle.close();
    signal.throwIfAborted();
    await fs.rename(temporary, target);
    renamed = true;
  } finally {
    if (!renamed) {
      await handle.close().catch(() => {});
      await fs.unlink(temporary).catch(() => {});
    }
  }
}

/** The longest start of `name` that fits in `max` UTF-8 bytes, cut between characters. */
function leadingBytes(name: string, max: number): string {
  let bytes = 0;
  let end = 0;
  for (const character of name) {
    bytes += Buffer.byteLength(character);
    if (bytes > max) break;
    end += character.length;
  }
  return name.slice(0, end);
}
