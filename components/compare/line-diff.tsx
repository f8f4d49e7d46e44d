'use client';

import { type Change, diffWordsWithSpace } from 'diff';
import { memo, useMemo, useState } from 'react';
import { type DiffLine, type DiffSkip, diffLinesOf, foldUnchanged, splitRows } from '@/lib/ui/diff-rows';
import { VisibleText } from '../visible-text';
import type { DiffLayout } from './use-diff-layout';

/** Lines longer than this are not diffed word by word. */
const WORD_DIFF_LIMIT = 400;

const LOOK = {
  added: 'bg-emerald-50 text-emerald-950 dark:bg-emerald-950/50 dark:text-emerald-100',
  removed: 'bg-red-50 text-red-950 dark:bg-red-950/50 dark:text-red-100',
  same: 'text-fg-muted',
} as const;
const MARK = {
  added: 'rounded-sm bg-emerald-200/80 dark:bg-emerald-700/60',
  removed: 'rounded-sm bg-red-200/80 dark:bg-red-800/60',
} as const;
const SIGN = { added: '+', removed: '-', same: ' ' } as const;

/** The words of `line` that differ from `other` (the line it faces), marked; invisible characters shown escaped. */
function Words({ line, other }: { line: DiffLine; other: DiffLine | null }) {
  if (line.kind === 'same' || !other || other.kind === 'same') return <VisibleText text={line.text} lines />;
  if (line.text.length > WORD_DIFF_LIMIT || other.text.length > WORD_DIFF_LIMIT) {
    return <VisibleText text={line.text} lines />;
  }
  const [from, to] = line.kind === 'removed' ? [line.text, other.text] : [other.text, line.text];
  const parts = diffWordsWithSpace(from, to);
  return (
    <>
      {parts.map((part, i) => {
        if (line.kind === 'removed' ? part.added : part.removed) return null;
        const changed = part.added || part.removed;
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: parts of a fixed diff, never reordered
          <span key={i} className={changed ? MARK[line.kind as 'added' | 'removed'] : undefined}>
            <VisibleText text={part.value} lines />
          </span>
        );
      })}
    </>
  );
}

function Cell({ line, other, side }: { line: DiffLine | null; other: DiffLine | null; side: 'left' | 'right' }) {
  if (!line) return <div className="col-span-2 bg-subtle/60" aria-hidden />;
  const no = side === 'left' ? line.oldNo : line.newNo;
  return (
    <>
      <span className="min-w-[3ch] select-none px-1 text-right text-fg-muted/70 tabular-nums">{no}</span>
      <div
        className={`min-w-0 whitespace-pre-wrap px-1.5 [overflow-wrap:anywhere] ${LOOK[line.kind]}`}
        data-diff={line.kind}
      >
        {line.kind !== 'same' && <span className="sr-only">{line.kind === 'added' ? 'added: ' : 'removed: '}</span>}
        <Words line={line} other={other} />
      </div>
    </>
  );
}

function Skip({ count, onExpand }: { count: number; onExpand: () => void }) {
  return (
    <button
      type="button"
      onClick={onExpand}
      className="col-span-full bg-subtle px-2 py-0.5 text-left text-[11px] text-fg-muted hover:bg-muted hover:text-fg"
      data-testid="diff-skip"
    >
      ⋯ {count.toLocaleString('en-US')} unchanged line{count === 1 ? '' : 's'} (show)
    </button>
  );
}

/**
 * A line diff (jsdiff's `diffLines` / `diffJson` changes) side by side or unified: line numbers,
 * `-`/`+` lines in red/green with the changed words marked, long unchanged runs folded (a click
 * shows them). Every line carries `data-diff` (`same`, `added`, `removed`).
 */
export const LineDiff = memo(function LineDiff({
  changes,
  layout,
  testId,
  className = 'max-h-[32rem]',
}: {
  changes: readonly Change[];
  layout: DiffLayout;
  testId?: string;
  className?: string;
}) {
  const [expanded, setExpanded] = useState(false);
  const lines = useMemo(() => diffLinesOf(changes), [changes]);
  const items: (DiffLine | DiffSkip)[] = useMemo(() => (expanded ? lines : foldUnchanged(lines)), [lines, expanded]);
  const expand = () => setExpanded(true);
  const box = `overflow-auto rounded border border-line bg-bg py-0.5 font-mono text-[12px] leading-5 ${className}`;

  if (layout === 'unified') {
    return (
      <div className={box} data-testid={testId} data-layout="unified">
        <div className="grid grid-cols-[auto_auto_1rem_minmax(0,1fr)]">
          {items.map((item, i) =>
            item.kind === 'skip' ? (
              // biome-ignore lint/suspicious/noArrayIndexKey: rows of a fixed diff
              <Skip key={i} count={item.count} onExpand={expand} />
            ) : (
              // biome-ignore lint/suspicious/noArrayIndexKey: rows of a fixed diff
              <div key={i} className="contents">
                <span className="min-w-[3ch] select-none px-1 text-right text-fg-muted/70 tabular-nums">
                  {item.oldNo}
                </span>
                <span className="min-w-[3ch] select-none px-1 text-right text-fg-muted/70 tabular-nums">
                  {item.newNo}
                </span>
                <span aria-hidden className={`select-none text-center ${LOOK[item.kind]}`}>
                  {SIGN[item.kind]}
                </span>
                <div
                  className={`min-w-0 whitespace-pre-wrap pr-1.5 [overflow-wrap:anywhere] ${LOOK[item.kind]}`}
                  data-diff={item.kind}
                >
                  {item.kind !== 'same' && (
                    <span className="sr-only">{item.kind === 'added' ? 'added: ' : 'removed: '}</span>
                  )}
                  <VisibleText text={item.text} lines />
                </div>
              </div>
            ),
          )}
        </div>
      </div>
    );
  }

  const rows = splitRows(items);
  return (
    <div className={box} data-testid={testId} data-layout="split">
      <div className="grid grid-cols-[auto_minmax(0,1fr)_auto_minmax(0,1fr)]">
        {rows.map((row, i) =>
          'count' in row ? (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows of a fixed diff
            <Skip key={i} count={row.count} onExpand={expand} />
          ) : (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows of a fixed diff
            <div key={i} className="contents">
              <Cell line={row.left} other={row.right} side="left" />
              <Cell line={row.right} other={row.left} side="right" />
            </div>
          ),
        )}
      </div>
    </div>
  );
});
