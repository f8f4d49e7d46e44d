import { ArrowRight } from 'lucide-react';
import Link from 'next/link';
import { filtersToSearch, type TraceFilters } from '@/lib/ui/trace-filters';

/** Below the list: how many calls are shown, the main keys, and the newest / older page links. */
export function ListFooter({
  filters,
  count,
  nextCursor,
}: {
  filters: TraceFilters;
  count: number;
  nextCursor: string | null;
}) {
  return (
    <nav aria-label="Pages" className="flex flex-wrap items-center justify-between gap-2 text-xs text-fg-muted">
      <span>
        {count} call{count === 1 ? '' : 's'} on this page
        <span data-keyboard-hint className="hidden sm:inline">
          {' '}
          · <kbd className="rounded border border-line px-1 font-mono">j</kbd>/
          <kbd className="rounded border border-line px-1 font-mono">k</kbd> move,{' '}
          <kbd className="rounded border border-line px-1 font-mono">Enter</kbd> open,{' '}
          <kbd className="rounded border border-line px-1 font-mono">p</kbd> pause,{' '}
          <kbd className="rounded border border-line px-1 font-mono">?</kbd> all shortcuts
        </span>
      </span>
      <span className="flex gap-3">
        {filters.cursor && (
          <Link href={`/${filtersToSearch(filters, { cursor: undefined })}`} className="text-accent hover:underline">
            ← Newest
          </Link>
        )}
        {nextCursor && (
          <Link
            href={`/${filtersToSearch(filters, { cursor: nextCursor })}`}
            className="inline-flex items-center gap-1 text-accent hover:underline"
            data-testid="older-page"
          >
            Older <ArrowRight size={12} aria-hidden />
          </Link>
        )}
      </span>
    </nav>
  );
}
