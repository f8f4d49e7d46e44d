import { TracesView } from '@/components/traces/traces-view';
import { isInvalidCursorError, type TracePage, type TraceStore } from '@/lib/db/trace-store';
import { getToolscope } from '@/lib/server/toolscope';
import { parseTraceFilters, toTraceQuery } from '@/lib/ui/trace-filters';
import { requestOrigin } from './_lib/request-origin';

export const dynamic = 'force-dynamic';

/** Every tool seen in the data and every registered one, sorted. */
function toolNames(store: TraceStore, registered: string[]): string[] {
  return [...new Set([...registered, ...store.tools()])].sort();
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
    // matched on code, not instanceof: the production build may hold two copies of the class
    if (!isInvalidCursorError(error)) throw error;
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
