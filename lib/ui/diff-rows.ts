import type { Change } from 'diff';

/** One line of a line diff, numbered on the side(s) it belongs to. */
export interface DiffLine {
  kind: 'same' | 'added' | 'removed';
  text: string;
  /** 1-based line number before (null for an added line). */
  oldNo: number | null;
  /** 1-based line number after (null for a removed line). */
  newNo: number | null;
}

/** Unchanged lines left out between two shown parts. */
export interface DiffSkip {
  kind: 'skip';
  count: number;
}

/** A row of the side-by-side view: a removed line facing the added line that replaced it. */
export interface SplitRow {
  left: DiffLine | null;
  right: DiffLine | null;
}

/** The lines of jsdiff's line changes (`diffLines`, `diffJson`), numbered on both sides. */
export function diffLinesOf(changes: readonly Change[]): DiffLine[] {
  const lines: DiffLine[] = [];
  let oldNo = 1;
  let newNo = 1;
  for (const change of changes) {
    const kind = change.added ? 'added' : change.removed ? 'removed' : 'same';
    const texts = change.value.replace(/\n$/, '').split('\n');
    for (const text of texts) {
      lines.push({
        kind,
        text,
        oldNo: kind === 'added' ? null : oldNo++,
        newNo: kind === 'removed' ? null : newNo++,
      });
    }
  }
  return lines;
}

/**
 * Unchanged runs longer than `2 × context` lines folded to their first and last `context` lines
 * (only the side that borders a change, at either end), so a long output with one changed line
 * shows that line and its surroundings.
 */
export function foldUnchanged(lines: readonly DiffLine[], context = 3): (DiffLine | DiffSkip)[] {
  const out: (DiffLine | DiffSkip)[] = [];
  let i = 0;
  while (i < lines.length) {
    if (lines[i]!.kind !== 'same') {
      out.push(lines[i]!);
      i += 1;
      continue;
    }
    let end = i;
    while (end < lines.length && lines[end]!.kind === 'same') end += 1;
    const head = i === 0 ? 0 : context;
    const tail = end === lines.length ? 0 : context;
    if (end - i > head + tail + 1) {
      out.push(
        ...lines.slice(i, i + head),
        { kind: 'skip', count: end - i - head - tail },
        ...lines.slice(end - tail, end),
      );
    } else {
      out.push(...lines.slice(i, end));
    }
    i = end;
  }
  return out;
}

/**
 * The side-by-side rows: unchanged lines on both sides, a run of removed lines facing the run of
 * added lines that follows it (line by line; the longer run's rest faces nothing), and skips.
 */
export function splitRows(items: readonly (DiffLine | DiffSkip)[]): (SplitRow | DiffSkip)[] {
  const rows: (SplitRow | DiffSkip)[] = [];
  let i = 0;
  while (i < items.length) {
    const item = items[i]!;
    if (item.kind === 'skip') {
      rows.push(item);
      i += 1;
    } else if (item.kind === 'same') {
      rows.push({ left: item, right: item });
      i += 1;
    } else {
      const removed: DiffLine[] = [];
      const added: DiffLine[] = [];
      while (i < items.length && items[i]!.kind === 'removed') removed.push(items[i++] as DiffLine);
      while (i < items.length && items[i]!.kind === 'added') added.push(items[i++] as DiffLine);
      for (let n = 0; n < Math.max(removed.length, added.length); n++) {
        rows.push({ left: removed[n] ?? null, right: added[n] ?? null });
      }
    }
  }
  return rows;
}

/** How many lines were added and removed. */
export function countChanges(lines: readonly DiffLine[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of lines) {
    if (line.kind === 'added') added += 1;
    else if (line.kind === 'removed') removed += 1;
  }
  return { added, removed };
}
