import type { Metadata } from 'next';
import { SESSIONS_PAGE_SIZE } from '@/components/sessions/sessions-api';
import { SessionsView } from '@/components/sessions/sessions-view';
import { sessionListJson } from '@/lib/api/session-json';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Sessions' };

const first = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value) ?? '';

/** Every session (agent run), newest activity first; live, searchable, keyset "load more". */
export default async function SessionsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const filters = { q: first(params.q).slice(0, 256), failed: first(params.failed) === 'true' };
  const { store, approvals } = getToolscope();
  const now = Date.now();
  const page = store.listSessions({
    text: filters.q || undefined,
    failedOnly: filters.failed,
    limit: SESSIONS_PAGE_SIZE,
  });
  return (
    <SessionsView
      initial={{ sessions: sessionListJson(page.items, approvals.list(), now), next_cursor: page.nextCursor }}
      initialFilters={filters}
      renderedAt={now}
    />
  );
}
