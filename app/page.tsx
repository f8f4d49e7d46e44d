import { TracesView } from '@/components/traces/traces-view';
import type { TracePage, TraceStore } from '@/lib/db/trace-store';
import { getToolscope } from '@/lib/server/toolscope';
import { parseTraceFilters, toTraceQuery } from '@/lib/ui/trace-filters';
import { requestOrigin } from './_lib/request-origin';

export const dynamic = 'force-dynamic';

/**
 * Whether the store refused the page cursor. Matched on `code`, never `instanceof`: the
 * production build may hold two copies of the error class in different chunks.
 */
function isInvalidCursor(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'INVALID_CURSOR';
}

/** Every tool seen in the data (when the store can say) and every registered one, sorted. */
function toolNames(store: TraceStore, registered: string[]): string[] {
  const seen = (store as TraceStore & { tools?: () => string[] }).tools?.() ?? [];
  return [...new Set([...registered, ...seen])].sort();
}

/** The traces list: newest first, filters in the URL, keyset pages, live on the first page. */
export default async function TracesPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const filters = parseTraceFilters(await searchParams);
  const { store, executor } = getToolscope();
  const now = Date.now();
  let page: TracePage;
  let invalidCursor = false;
  try {
    page = store.list(toTraceQuery(filters, now));
  } catch (error) {
    if (!isInvalidCursor(error)) throw error;
    // A stale or hand-edited page link: show the newest calls and say so, not an error page.
    invalidCursor = true;
    filters.cursor = undefined;
    page = store.list(toTraceQuery(filters, now));
  }
  const databaseEmpty = page.items.length === 0 && store.list({ limit: 1 }).items.length === 0;
  const tools = toolNames(
    store,
    executor.registry.list().map((t) => t.name),
  );
  return (
    <TracesView
      key={JSON.stringify(filters)}
      initialPage={page}
      filters={filters}
      tools={tools}
      origin={await requestOrigin()}
      databaseEmpty={databaseEmpty}
      renderedAt={now}
      invalidCursor={invalidCursor}
    />
  );
}
