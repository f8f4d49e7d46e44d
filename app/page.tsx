import { TracesView } from '@/components/traces/traces-view';
import { InvalidCursorError, type TracePage } from '@/lib/db/trace-store';
import { getToolscope } from '@/lib/server/toolscope';
import { parseTraceFilters, toTraceQuery } from '@/lib/ui/trace-filters';
import { requestOrigin } from './_lib/request-origin';

export const dynamic = 'force-dynamic';

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
  try {
    page = store.list(toTraceQuery(filters, now));
  } catch (error) {
    if (!(error instanceof InvalidCursorError)) throw error;
    filters.cursor = undefined;
    page = store.list(toTraceQuery(filters, now));
  }
  const databaseEmpty = page.items.length === 0 && store.list({ limit: 1 }).items.length === 0;
  const tools = executor.registry
    .list()
    .map((t) => t.name)
    .sort();
  return (
    <TracesView
      key={JSON.stringify(filters)}
      initialPage={page}
      filters={filters}
      tools={tools}
      origin={await requestOrigin()}
      databaseEmpty={databaseEmpty}
      renderedAt={now}
    />
  );
}
