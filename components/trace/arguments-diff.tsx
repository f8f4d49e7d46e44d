import { diffJson } from 'diff';
import { memo } from 'react';

/**
 * The approver's edit as a line diff of the two JSON documents (keys sorted, so only real
 * changes show): removed lines red with `-`, added green with `+`, unchanged ones muted.
 */
export const ArgumentsDiff = memo(function ArgumentsDiff({ before, after }: { before: unknown; after: unknown }) {
  const parts = diffJson(before as object, after as object);
  return (
    <pre
      className="max-h-96 overflow-auto rounded border border-line bg-subtle/50 py-1 font-mono text-[12px] leading-5"
      data-testid="arguments-diff"
    >
      {parts.flatMap((part, index) =>
        part.value
          .replace(/\n$/, '')
          .split('\n')
          .map((line, n) => {
            const kind = part.added ? 'added' : part.removed ? 'removed' : 'same';
            const look =
              kind === 'added'
                ? 'bg-emerald-50 text-emerald-900 dark:bg-emerald-950/50 dark:text-emerald-200'
                : kind === 'removed'
                  ? 'bg-red-50 text-red-900 dark:bg-red-950/50 dark:text-red-200'
                  : 'text-fg-muted';
            return (
              <div
                // biome-ignore lint/suspicious/noArrayIndexKey: lines of a fixed diff, never reordered
                key={`${index}-${n}`}
                className={`whitespace-pre-wrap px-2 [overflow-wrap:anywhere] ${look}`}
                data-diff={kind}
              >
                <span aria-hidden className="mr-2 select-none opacity-70">
                  {kind === 'added' ? '+' : kind === 'removed' ? '-' : ' '}
                </span>
                {kind !== 'same' && <span className="sr-only">{kind === 'added' ? 'added: ' : 'removed: '}</span>}
                {line}
              </div>
            );
          }),
      )}
    </pre>
  );
});
