import { createHash } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import { type StructuredPatch, structuredPatch } from 'diff';
import type { FileChange, PreviewDiffLine } from '../executor/call-preview';
import { BINARY_SAMPLE_BYTES, detectBinary } from './detect-binary';
import { formatBytes } from './format-bytes';
import { lineCount } from './previews';
import { resolveInWorkspace } from './sandbox';

/** Files larger than this are not compared (the card says so). */
export const MAX_COMPARED_BYTES = 256 * 1024;
/** Diff lines a preview carries at most; the rest is counted. */
export const MAX_DIFF_LINES = 400;
/** How long the diff may take before the file is said too different to diff quickly. */
const DIFF_TIMEOUT_MS = 100;
/** The most changed lines the diff looks for before the file is said too different to diff quickly. */
const MAX_EDIT_LINES = 4_000;
/** Changes kept for files unchanged since (the queue is read on every page, often). */
const CACHE_SIZE = 200;

const cache = new Map<string, FileChange>();

/**
 * What writing `content` to `requested` in the workspace would change, against the file there now:
 * `new`, `same`, a line diff (hunks with 3 lines of context, at most MAX_DIFF_LINES lines), or
 * `unknown` with the reason (a folder, not a regular file, binary, over MAX_COMPARED_BYTES, a path
 * the tool refuses, too different to diff within DIFF_TIMEOUT_MS). The file's text passes through
 * `scrub` first, as the stored arguments were redacted. The path is resolved as `write_file` does
 * (no `..`, no absolute path, no symlink out of the workspace); nothing is written.
 */
export async function fileChange(
  workspace: string,
  requested: string,
  content: string,
  scrub: (text: string) => string,
): Promise<FileChange> {
  let absolute: string;
  try {
    const target = await resolveInWorkspace(workspace, requested);
    if (!target.exists) return { kind: 'new' };
    absolute = target.absolute;
  } catch (error) {
    return { kind: 'unknown', reason: `the path is refused (${(error as Error).message})` };
  }
  // Non-blocking: a FIFO put in the file's place must not hold the request.
  const handle = await fs.open(absolute, constants.O_RDONLY | constants.O_NONBLOCK).catch(() => null);
  if (!handle) return { kind: 'unknown', reason: 'the file on disk cannot be read' };
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) return { kind: 'unknown', reason: 'a folder is at this path' };
    if (!stats.isFile()) return { kind: 'unknown', reason: 'the file on disk is not a regular file' };
    if (stats.size > MAX_COMPARED_BYTES) {
      return { kind: 'unknown', reason: `the file on disk is ${formatBytes(stats.size)}, too large to compare` };
    }
    const key = createHash('sha256')
      .update(`${absolute}\0${stats.mtimeMs}\0${stats.size}\0`)
      .update(content)
      .digest('hex');
    const known = cache.get(key);
    if (known) return known;
    const bytes = await handle.readFile();
    const binary = detectBinary(bytes.subarray(0, BINARY_SAMPLE_BYTES));
    const change: FileChange = binary
      ? { kind: 'unknown', reason: `the file on disk is not text (${binary})` }
      : diffTexts(scrub(bytes.toString('utf8')), content);
    cache.set(key, change);
    if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    return change;
  } finally {
    await handle.close();
  }
}

/**
 * The line diff of `before` → `after`. Bounded, as it runs on the event loop: the texts are at
 * most MAX_COMPARED_BYTES (and the bounded content), and jsdiff gives up past MAX_EDIT_LINES
 * changed lines or DIFF_TIMEOUT_MS (its async mode waits a timer turn per step, far too slow).
 */
export function diffTexts(before: string, after: string): FileChange {
  if (before === after) return { kind: 'same' };
  // Lines compared as lines: a last line without its newline is not a changed line (a diff with
  // no lines then says only the final newline changes).
  const ended = (text: string) => (text === '' || text.endsWith('\n') ? text : `${text}\n`);
  const patch = structuredPatch('before', 'after', ended(before), ended(after), undefined, undefined, {
    context: 3,
    maxEditLength: MAX_EDIT_LINES,
    timeout: DIFF_TIMEOUT_MS,
  });
  if (!patch) return { kind: 'unknown', reason: 'the file on disk is too different to diff quickly' };
  return diffOfHunks(patch, lineCount(before));
}

/** The hunks' lines numbered on both sides, the unchanged lines between (and after) them as skips. */
function diffOfHunks(patch: StructuredPatch, oldLineCount: number): FileChange {
  const lines: PreviewDiffLine[] = [];
  let added = 0;
  let removed = 0;
  let omitted = 0;
  const push = (line: PreviewDiffLine) => {
    if (lines.length < MAX_DIFF_LINES) lines.push(line);
    else omitted++;
  };
  let nextOld = 1;
  for (const hunk of patch.hunks) {
    if (hunk.oldStart > nextOld) push({ kind: 'skip', count: hunk.oldStart - nextOld });
    let oldNo = hunk.oldStart;
    let newNo = hunk.newStart;
    for (const line of hunk.lines) {
      const mark = line[0];
      const text = line.slice(1);
      if (mark === '+') {
        added++;
        push({ kind: 'added', text, oldNo: null, newNo: newNo++ });
      } else if (mark === '-') {
        removed++;
        push({ kind: 'removed', text, oldNo: oldNo++, newNo: null });
      } else if (mark === ' ') {
        push({ kind: 'same', text, oldNo: oldNo++, newNo: newNo++ });
      }
      // `\ No newline at end of file` says nothing a person reading the lines needs.
    }
    nextOld = oldNo;
  }
  if (patch.hunks.length > 0 && oldLineCount >= nextOld) push({ kind: 'skip', count: oldLineCount - nextOld + 1 });
  return { kind: 'diff', added, removed, lines, omitted };
}
