'use client';

import { diffJson } from 'diff';
import { memo, useMemo, useState } from 'react';
import { type IgnoredChange, type IgnoreRules, splitVolatile } from '@/lib/replay/volatile-paths';
import { jsonPathDiff, type PathChange } from '@/lib/ui/json-path-diff';
import { MarkedText } from '../trace/text-marks';
import { LineDiff } from './line-diff';
import type { DiffLayout } from './use-diff-layout';

/** Paths listed before "show all". */
const SHOWN_PATHS = 30;
const PREVIEW_CHARS = 160;
/** How long jsdiff may take on the two documents before only the paths are shown. */
const DIFF_TIMEOUT_MS = 250;

const KIND_LOOK: Record<PathChange['kind'], string> = {
  added: 'border-emerald-300 text-emerald-800 dark:border-emerald-800 dark:text-emerald-300',
  removed: 'border-red-300 text-red-800 dark:border-red-800 dark:text-red-300',
  changed: 'border-amber-300 text-amber-800 dark:border-amber-800 dark:text-amber-300',
};

function preview(value: unknown): string {
  const text = value === undefined ? '' : JSON.stringify(value);
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text;
}

function Value({ value, tone }: { value: unknown; tone: 'removed' | 'added' }) {
  return (
    <code
      className={`rounded-sm px-1 font-mono text-[12px] [overflow-wrap:anywhere] ${tone === 'removed' ? 'bg-red-50 text-red-900 line-through decoration-red-400/60 dark:bg-red-950/50 dark:text-red-200' : 'bg-emerald-50 text-emerald-900 dark:bg-emerald-950/50 dark:text-emerald-200'}`}
    >
      <MarkedText text={preview(value)} />
    </code>
  );
}

/**
 * The changed paths as a list: path, what happened, the value before and after. A change at a
 * volatile path (`rule` set) is shown dimmed and struck through, with the rule that ignores it.
 */
function PathList({ changes, more }: { changes: (PathChange | IgnoredChange)[]; more: number }) {
  const [all, setAll] = useState(false);
  const shown = all ? changes : changes.slice(0, SHOWN_PATHS);
  const hidden = changes.length - shown.length + more;
  return (
    <ul className="flex flex-col divide-y divide-line rounded border border-line text-xs" data-testid="path-changes">
      {shown.map((change) => {
        const rule = 'rule' in change ? change.rule : null;
        return (
          <li
            key={`${change.kind}:${change.path}`}
            className={`flex flex-wrap items-baseline gap-x-2 gap-y-0.5 px-2 py-1 ${rule ? 'opacity-60' : ''}`}
            data-testid="path-change"
            data-kind={change.kind}
            data-path={change.path}
            data-ignored={rule !== null}
          >
            <span className={`rounded border px-1 text-[10px] font-semibold uppercase ${KIND_LOOK[change.kind]}`}>
              {change.kind}
            </span>
            <code className={`font-mono font-medium ${rule ? 'line-through' : ''}`}>
              {change.path || '(whole value)'}
            </code>
            {change.kind !== 'added' && <Value value={change.before} tone="removed" />}
            {change.kind === 'changed' && (
              <span className="text-fg-muted">
                <span aria-hidden>→</span>
                <span className="sr-only">became</span>
              </span>
            )}
            {change.kind !== 'removed' && <Value value={change.after} tone="added" />}
            {rule && (
              <span className="text-[11px] text-fg-muted" title="A volatile path: not counted as a change">
                ignored ({rule})
              </span>
            )}
          </li>
        );
      })}
      {hidden > 0 && (
        <li className="px-2 py-1 text-fg-muted">
          {more > 0 && all ? (
            `${more.toLocaleString('en-US')} more changes not listed; the line diff below has them all.`
          ) : (
            <button type="button" className="text-accent hover:underline" onClick={() => setAll(true)}>
              Show {hidden.toLocaleString('en-US')} more
            </button>
          )}
        </li>
      )}
    </ul>
  );
}

/**
 * Two JSON values compared: the structural diff (which paths were added, removed or changed, with
 * their values) and, below, the line diff of both documents with keys sorted (jsdiff's `diffJson`).
 * With `ignore`, changes at volatile paths are left out (shown struck through with `showIgnored`);
 * when they are all there is, the line diff shows only with `showIgnored`.
 */
export const JsonDiff = memo(function JsonDiff({
  before,
  after,
  layout,
  testId,
  ignore,
  showIgnored = false,
}: {
  before: unknown;
  after: unknown;
  layout: DiffLayout;
  testId?: string;
  ignore?: IgnoreRules;
  showIgnored?: boolean;
}) {
  const paths = useMemo(() => jsonPathDiff(before, after), [before, after]);
  const split = useMemo(
    () => (ignore ? splitVolatile(paths.changes, ignore) : { real: paths.changes, ignored: [] }),
    [paths, ignore],
  );
  const changed = split.real.length > 0 || paths.more > 0;
  const listed = useMemo(
    () =>
      showIgnored
        ? [...split.real, ...split.ignored].sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0))
        : split.real,
    [split, showIgnored],
  );
  const lines = useMemo(
    () =>
      changed || (showIgnored && split.ignored.length > 0)
        ? diffJson(before as object, after as object, { timeout: DIFF_TIMEOUT_MS })
        : null,
    [before, after, changed, showIgnored, split],
  );
  if (paths.changes.length === 0) {
    return (
      <p className="text-xs text-fg-muted" data-testid={testId} data-changed="false">
        Identical on both sides.
      </p>
    );
  }
  if (!changed && !showIgnored) {
    return (
      <p
        className="text-xs text-fg-muted"
        data-testid={testId}
        data-changed="false"
        data-ignored={split.ignored.length}
      >
        Identical but for {split.ignored.length} volatile difference{split.ignored.length === 1 ? '' : 's'} (ignored).
      </p>
    );
  }
  return (
    <div
      className="flex flex-col gap-2"
      data-testid={testId}
      data-changed={changed}
      data-ignored={split.ignored.length}
    >
      <PathList changes={listed} more={paths.more} />
      {lines ? (
        <LineDiff changes={lines} layout={layout} testId={testId ? `${testId}-lines` : undefined} />
      ) : (
        <p className="text-xs text-fg-muted">
          Too different to diff line by line quickly; the changed paths are above.
        </p>
      )}
    </div>
  );
});
