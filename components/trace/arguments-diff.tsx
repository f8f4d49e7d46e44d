'use client';

import { diffJson } from 'diff';
import { memo, useMemo } from 'react';
import { LineDiff } from '../compare/line-diff';
import { useDiffLayout } from '../compare/use-diff-layout';

/**
 * The approver's edit as a line diff of the two JSON documents (keys sorted, so only real
 * changes show), side by side or unified as chosen on the compare view: removed lines red with
 * `-`, added green with `+`, the changed words marked.
 */
export const ArgumentsDiff = memo(function ArgumentsDiff({ before, after }: { before: unknown; after: unknown }) {
  const [layout] = useDiffLayout();
  const changes = useMemo(() => diffJson(before as object, after as object), [before, after]);
  return <LineDiff changes={changes} layout={layout} testId="arguments-diff" className="max-h-96" />;
});
