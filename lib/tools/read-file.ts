import { constants, promises as fs } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool, type ZodTool } from '../executor/define-tool';
import { ToolError } from '../executor/errors';
import { createPathSubject } from '../policy/path-subject';
import { BINARY_SAMPLE_BYTES, detectBinary } from './detect-binary';
import { fileError, fileNotFound } from './file-errors';
import { formatBytes } from './format-bytes';
import { readFileDescriber } from './previews';
import { listWorkspaceFolder, openWorkspaceFolder, resolveInWorkspace, type WorkspacePath } from './sandbox';

export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;
export const DEFAULT_MAX_LINES = 2000;
/** Entries of a folder named in the IS_A_DIRECTORY error. */
const LISTED_ENTRIES = 100;
const CHUNK_BYTES = 64 * 1024;

export interface ReadFileOptions {
  /** The folder the tool may read from; nothing outside it is reachable. */
  workspace: string;
  /** Larger files are refused with SIZE_EXCEEDED. Default 1 MiB. */
  maxBytes?: number;
  /** Lines returned when the model gives no `limit`. Default 2000. */
  defaultLimit?: number;
}

const inputSchema = z.object({
  path: z
    .string()
    .min(1)
    .max(4096)
    .describe('Path of the file relative to the workspace folder, e.g. "src/index.ts". Use "." to list the folder.'),
  offset: z.number().int().min(1).optional().describe('1-based line number to start reading from. Default 1.'),
  limit: z.number().int().min(1).optional().describe('How many lines to return at most.'),
});

export type ReadFileInput = z.infer<typeof inputSchema>;

export interface ReadFileOutput {
  /** The path as normalized inside the workspace. */
  path: string;
  /** The requested lines joined with "\n". */
  content: string;
  /** Lines in the whole file. */
  totalLines: number;
  /** 1-based number of the first returned line. */
  offset: number;
  linesReturned: number;
  /** True when lines after the returned ones exist; read on from `nextOffset`. */
  truncated: boolean;
  nextOffset?: number;
  /** Size of the whole file in bytes. */
  bytes: number;
}

/**
 * The `read_file` tool: reads a UTF-8 text file inside the workspace, by lines.
 *
 * 1. The path is resolved by `resolveInWorkspace` (no absolute paths, no `..`, no symlink out).
 * 2. Folders fail with IS_A_DIRECTORY, listing their entries so the model can pick one;
 *    FIFOs, sockets and devices fail with NOT_A_FILE (opening a FIFO would block).
 * 3. The file is opened through its folder's descriptor, walking the checked path again without
 *    following any symlink (a folder swapped for a link since the check is refused), its size checked on the
 *    open handle (SIZE_EXCEEDED), its first 8 KiB checked for magic bytes and NULs (BINARY_FILE).
 * 4. The lines `offset .. offset + limit - 1` are returned, with `nextOffset` when more remain.
 * @example createReadFileTool({ workspace: '/srv/ws' }).execute({ path: 'README.md' }, ctx)
 */
export function createReadFileTool(options: ReadFileOptions): ZodTool<ReadFileInput, ReadFileOutput> {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_FILE_BYTES;
  const defaultLimit = options.defaultLimit ?? DEFAULT_MAX_LINES;
  return defineTool({
    name: 'read_file',
    description: [
      'Read a text file from the workspace folder. Paths are relative to the workspace ("notes/todo.md");',
      'absolute paths and ".." are refused. Returns the lines as `content` with `totalLines`.',
      `Returns at most ${defaultLimit} lines unless you set \`limit\`; when \`truncated\` is true, call again with`,
      '`offset` set to `nextOffset` to read on. `offset` is a 1-based line number.',
      `Files over ${formatBytes(maxBytes)} and binary files (images, archives, executables) cannot be read.`,
      'Reading a folder fails with IS_A_DIRECTORY and lists its entries.',
    ].join(' '),
    inputSchema,
    sideEffect: 'read',
    permissionSubject: createPathSubject(),
    describe: readFileDescriber,
    timeoutMs: 10_000,
    retry: { maxAttempts: 2, baseDelayMs: 100 },
    async execute({ path: requested, offset = 1, limit = defaultLimit }, ctx) {
      try {
        const target = await resolveInWorkspace(options.workspace, requested);
        if (!target.exists) throw fileNotFound(target.relative);
        const stats = await fs.stat(target.absolute);
        if (stats.isDirectory()) throw await directoryError(target);
        if (!stats.isFile()) throw notAFile(target.relative);
        const bytes = await readCapped(target, maxBytes, ctx.signal);
        const binary = detectBinary(bytes.subarray(0, BINARY_SAMPLE_BYTES));
        if (binary) {
          throw ToolError.business('BINARY_FILE', `"${target.relative}" is not a text file (${binary}).`, {
            hint: 'Only text files can be read; do not retry with this file.',
            details: { format: binary, bytes: bytes.length },
          });
        }
        return selectLines(target.relative, bytes, offset, limit);
      } catch (error) {
        if (ctx.signal.aborted) throw ctx.signal.reason;
        throw fileError(error, requested);
      }
    },
  });
}

/** Opens without following any symlink, checks the open handle, reads at most `maxBytes`. */
async function readCapped(target: WorkspacePath, maxBytes: number, signal: AbortSignal): Promise<Buffer> {
  const handle = await openForReading(target);
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw notAFile(target.relative);
    if (stats.size > maxBytes) throw sizeExceeded(target.relative, stats.size, maxBytes);
    return await readAtMost(handle, maxBytes, target.relative, signal);
  } finally {
    await handle.close();
  }
}

/**
 * Opens the checked file through its folder's descriptor (`openWorkspaceFolder`), so no folder
 * swapped for a symlink since the check is followed; the file itself with O_NOFOLLOW, and
 * O_NONBLOCK so a FIFO swapped in since the stat cannot make open hang. Without /proc, by path,
 * then checked to be the same file still inside.
 */
async function openForReading(target: WorkspacePath): Promise<FileHandle> {
  const flags = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
  const folder = await openWorkspaceFolder(target, { create: false });
  if (folder) {
    try {
      return await fs.open(folder.at(path.basename(target.absolute)), flags);
    } finally {
      await folder.close();
    }
  }
  const handle = await fs.open(target.absolute, flags);
  try {
    await checkStillInside(target, await handle.stat());
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Narrows the race where a folder on the path is swapped for a symlink after the sandbox check. */
async function checkStillInside(target: WorkspacePath, opened: { ino: number; dev: number }): Promise<void> {
  const [real, named] = await Promise.all([fs.realpath(target.absolute), fs.stat(target.absolute)]);
  if (real !== target.absolute || named.ino !== opened.ino || named.dev !== opened.dev) {
    throw ToolError.parameter('SECURITY_VIOLATION', `"${target.relative}" changed while it was being opened.`);
  }
}

async function readAtMost(handle: FileHandle, maxBytes: number, shown: string, signal: AbortSignal): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    signal.throwIfAborted();
    // One byte past the cap tells a file that grew since fstat from one exactly at the cap.
    const buffer = Buffer.alloc(Math.min(CHUNK_BYTES, maxBytes + 1 - total));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
    if (bytesRead === 0) return Buffer.concat(chunks, total);
    chunks.push(buffer.subarray(0, bytesRead));
    total += bytesRead;
    if (total > maxBytes) throw sizeExceeded(shown, total, maxBytes);
  }
}

function selectLines(path: string, bytes: Buffer, offset: number, limit: number): ReadFileOutput {
  const text = new TextDecoder('utf-8').decode(bytes);
  const lines = text === '' ? [] : text.split(/\r?\n/);
  if (text.endsWith('\n')) lines.pop();
  const totalLines = lines.length;
  if (offset > Math.max(totalLines, 1)) {
    throw ToolError.parameter(
      'OFFSET_OUT_OF_RANGE',
      `"${path}" has ${totalLines} line${totalLines === 1 ? '' : 's'}; offset ${offset} is past the end.`,
      { hint: `Use an offset between 1 and ${Math.max(totalLines, 1)}.`, details: { totalLines } },
    );
  }
  const end = Math.min(totalLines, offset - 1 + limit);
  const selected = lines.slice(offset - 1, end);
  const output: ReadFileOutput = {
    path,
    content: selected.join('\n'),
    totalLines,
    offset,
    linesReturned: selected.length,
    truncated: end < totalLines,
    bytes: bytes.length,
  };
  if (end < totalLines) output.nextOffset = end + 1;
  return output;
}

async function directoryError(target: WorkspacePath): Promise<ToolError> {
  const entries = await listWorkspaceFolder(target);
  const names = entries
    .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
    .sort((a, b) => a.localeCompare(b));
  const listed = names.slice(0, LISTED_ENTRIES);
  const more = names.length > listed.length ? `, and ${names.length - listed.length} more` : '';
  const prefix = target.relative === '.' ? '' : `${target.relative}/`;
  return ToolError.parameter(
    'IS_A_DIRECTORY',
    names.length === 0
      ? `"${target.relative}" is an empty folder, not a file.`
      : `"${target.relative}" is a folder, not a file. It contains: ${listed.join(', ')}${more}.`,
    {
      hint: `Read one of its files by its path, e.g. "${prefix}${listed.find((name) => !name.endsWith('/')) ?? 'name'}".`,
      details: { entries: listed, totalEntries: names.length },
    },
  );
}

function notAFile(shown: string): ToolError {
  return ToolError.parameter('NOT_A_FILE', `"${shown}" is not a regular file (it is a device, socket or pipe).`);
}

function sizeExceeded(shown: string, size: number, maxBytes: number): ToolError {
  return ToolError.business(
    'SIZE_EXCEEDED',
    `"${shown}" is ${formatBytes(size)}; files over ${formatBytes(maxBytes)} cannot be read.`,
    { hint: 'Do not retry with this file; read a smaller file instead.', details: { bytes: size, maxBytes } },
  );
}
