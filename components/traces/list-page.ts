import type { TracePage } from '@/lib/db/trace-store';
import { type ListRow, type SummaryJson, summaryFromJson } from '@/lib/ui/summary-from-json';
import { apiListUrl, type TraceFilters } from '@/lib/ui/trace-filters';

export const PAGE_SIZE = 50;

/** A page as the list holds it: rows may carry an arguments preview, and the store may know the total. */
export type ListPage = Omit<TracePage, 'items'> & { items: ListRow[]; total?: number | null };

/** The list's first page for these filters from `GET /api/v1/traces`. */
export async function fetchFirstPage(filters: TraceFilters): Promise<ListPage> {
  const response = await fetch(apiListUrl(filters, Date.now(), PAGE_SIZE), { cache: 'no-store' });
  if (!response.ok) throw new Error(`traces list: HTTP ${response.status}`);
  const body = (await response.json()) as {
    items: SummaryJson[];
    next_cursor: string | null;
    partial?: boolean;
    total?: number | null;
  };
  return {
    items: body.items.map(summaryFromJson),
    nextCursor: body.next_cursor,
    partial: body.partial ?? false,
    total: body.total ?? null,
  };
}
