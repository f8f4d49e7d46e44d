'use client';

import { diffLines } from 'diff';
import { memo, useMemo } from 'react';
import { LargeText } from '../trace/large-text';
import { LineDiff } from './line-diff';
import type { DiffLayout } from './use-diff-layout';

/** How long jsdiff may take on one pair of texts before the two are shown without a diff. */
const DIFF_TIMEOUT_MS = 250;

/**
 * Two texts (stdout, stderr, a text output) as a line diff. When they are too different to diff
 * within a quarter second, both are shown whole, side by side, and the page says so.
 */
export const TextDiff = memo(function TextDiff({
  before,
  after,
  layout,
  testId,
}: {
  before: string;
  after: string;
  layout: DiffLayout;
  testId?: string;
}) {
  const changes = useMemo(() => diffLines(before, after, { timeout: DIFF_TIMEOUT_MS }), [before, after]);
  if (changes) return <LineDiff changes={changes} layout={layout} testId={testId} />;
  return (
    <div className="flex flex-col gap-1" data-testid={testId} data-layout="none">
      <p className="text-xs text-fg-muted">Too different to diff line by line quickly; both texts in full:</p>
      <div className="grid gap-2 lg:grid-cols-2">
        <LargeText text={before} />
        <LargeText text={after} />
      </div>
    </div>
  );
});
