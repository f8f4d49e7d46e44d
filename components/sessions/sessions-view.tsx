'use client';

import { useInfiniteQuery } from '@tanstack/react-query';
import { Search } from 'lucide-react';
import Link from 'next/link';
import { useCallback, useEffect, useRef, useState } from 'react';
import { formatDuration } from '@/lib/ui/format';
import { escapeInvisible } from '@/lib/ui/invisible-characters';
import { Timestamp } from '../timestamp';
import { LiveIndicator } from '../traces/live-indicator';
import { useListKeys } from '../traces/use-list-keys';
import { useTraceEvents } from '../use-trace-events';
import { VisibleText } from '../visible-text';
import { fetchSessionsPage, type SessionFilters, type SessionsPageJson, sessionsSearch } from './sessions-api';
import { useSerialFetches } from './use-serial-fetches';

/** Events arriving closer together than this cause one refetch. */
const REFETCH_THROTTLE_MS = 500;
/** While the event stream is down, the loaded pages are read again this often. */
const POLL_MS = 3_000;

const sessionHref = (row: { id: string }) => `/sessions/${encodeURIComponent(row.id)}`;
/** Typing pauses this long before the search runs. */
const SEARCH_DEBOUNCE_MS = 200;
export const SESSIONS_SEARCH_ID = 'sessions-search';

const th = 'px-2 py-1.5 font-medium';
const num = 'px-2 py-1 text-right tabular-nums';

/**
 * The sessions list: every agent run, newest activity first.
 * 1. The server renders the first page; TanStack Query holds it (an infinite query: "Load more"
 *    appends the next keyset page).
 * 2. Each trace event refetches the loaded pages (throttled); polling takes over while the stream
 *    is down, and a reconnect refetches. Refetches and "Load more" run one after the other
 *    (`useSerialFetches`), so neither cancels the other.
 * 3. `/` focuses the search, j/k move the selection, Enter opens the session. The filters live in
 *    the address bar, so a reload or a shared link shows the same list.
 */
export function SessionsView({
  initial,
  initialFilters,
  renderedAt,
}: {
  initial: SessionsPageJson;
  initialFilters: SessionFilters;
  renderedAt: number;
}) {
  const [text, setText] = useState(initialFilters.q);
  const [filters, setFilters] = useState<SessionFilters>(initialFilters);
  const [selected, setSelected] = useState(-1);
  const [connected, setConnected] = useState(false);

  useEffect(() => {
    if (text === filters.q) return;
    const timer = setTimeout(() => setFilters((f) => ({ ...f, q: text })), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text, filters.q]);
  useEffect(() => {
    window.history.replaceState(null, '', `/sessions${sessionsSearch(filters)}`);
    setSelected(-1);
  }, [filters]);

  const isInitial = filters.q === initialFilters.q && filters.failed === initialFilters.failed;
  const query = useInfiniteQuery({
    queryKey: ['sessions', filters.q, filters.failed, renderedAt],
    queryFn: ({ pageParam }) => fetchSessionsPage(filters, pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.next_cursor,
    initialData: isInitial ? { pages: [initial], pageParams: [null] } : undefined,
    initialDataUpdatedAt: renderedAt,
    staleTime: Number.POSITIVE_INFINITY,
  });
  const rows = query.data?.pages.flatMap((page) => page.sessions) ?? [];
  const { refresh, loadMore, loadingMore } = useSerialFetches(query);

  const throttle = useRef<ReturnType<typeof setTimeout> | null>(null);
  const connection = useTraceEvents(
    () => {
      if (throttle.current) return;
      throttle.current = setTimeout(() => {
        throttle.current = null;
        refresh();
      }, REFETCH_THROTTLE_MS);
    },
    { onReconnect: refresh },
  );
  useEffect(() => setConnected(connection.state === 'live'), [connection.state]);
  useEffect(() => {
    if (connected) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') refresh();
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [connected, refresh]);
  useEffect(
    () => () => {
      if (throttle.current) clearTimeout(throttle.current);
    },
    [],
  );

  const bodyRef = useRef<HTMLTableSectionElement>(null);
  const focusRow = useCallback((index: number) => {
    const link = bodyRef.current?.querySelectorAll<HTMLAnchorElement>('a[data-row-link]')[index];
    link?.focus({ preventScroll: true });
    link?.closest('tr')?.scrollIntoView({ block: 'nearest' });
  }, []);

  useListKeys({ rows, selected, setSelected, focusRow, searchId: SESSIONS_SEARCH_ID, hrefOf: sessionHref });

  const filtered = filters.q !== '' || filters.failed;

  return (
    <div className="flex flex-col gap-3">
      <div className="flex flex-wrap items-center justify-between gap-x-3 gap-y-1">
        <div className="flex items-baseline gap-3">
          <h1 className="text-base font-semibold">Sessions</h1>
          <span className="text-xs text-fg-muted">Agent runs, newest activity first</span>
        </div>
        <LiveIndicator connection={connection} />
      </div>
      <search>
        <form
          className="flex flex-wrap items-center gap-2 text-xs"
          onSubmit={(event) => {
            event.preventDefault();
            setFilters((f) => ({ ...f, q: text }));
          }}
        >
          <label className="relative flex items-center">
            <span className="sr-only">Search session ids</span>
            <Search size={12} aria-hidden className="pointer-events-none absolute left-2 text-fg-muted" />
            <input
              id={SESSIONS_SEARCH_ID}
              type="search"
              value={text}
              onChange={(event) => setText(event.target.value)}
              onKeyDown={(event) => {
                if (event.key === 'Escape') event.currentTarget.blur();
              }}
              placeholder="Session id contains…  ( / )"
              maxLength={256}
              className="w-64 rounded border border-line bg-bg py-1 pl-6 pr-2"
              data-testid="sessions-search"
            />
          </label>
          <label className="inline-flex cursor-pointer items-center gap-1.5 rounded border border-line px-2 py-1">
            <input
              type="checkbox"
              checked={filters.failed}
              onChange={(event) => setFilters((f) => ({ ...f, failed: event.target.checked }))}
              data-testid="sessions-failed-only"
            />
            With failures or denials only
          </label>
        </form>
      </search>
      {query.isError && (
        <p role="alert" className="text-xs text-red-700 dark:text-red-300">
          Could not refresh the list ({query.error instanceof Error ? query.error.message : String(query.error)}).
          Retrying.
        </p>
      )}
      <div className="overflow-x-auto rounded border border-line">
        <table className="w-full border-collapse text-left text-xs" data-testid="sessions-table">
          <caption className="sr-only">Sessions, newest activity first. Use j and k to move, Enter to open.</caption>
          <thead className="bg-subtle text-[11px] uppercase tracking-wide text-fg-muted">
            <tr>
              <th scope="col" className={th}>
                Session
              </th>
              <th scope="col" className={`${th} hidden sm:table-cell`}>
                First call
              </th>
              <th scope="col" className={th}>
                Last call
              </th>
              <th scope="col" className={`${th} text-right`}>
                Calls
              </th>
              <th scope="col" className={`${th} text-right`}>
                Failed
              </th>
              <th scope="col" className={`${th} hidden text-right sm:table-cell`}>
                Denied
              </th>
              <th scope="col" className={`${th} hidden text-right md:table-cell`}>
                Running
              </th>
              <th
                scope="col"
                className={`${th} hidden text-right md:table-cell`}
                title="Time calls waited for a decision"
              >
                Approval wait
              </th>
              <th scope="col" className={`${th} text-right`} title="From the first call's start to the last finish">
                Wall time
              </th>
            </tr>
          </thead>
          <tbody ref={bodyRef}>
            {rows.map((row, index) => (
              <tr
                key={row.id}
                data-testid="session-row"
                data-session-id={row.id}
                aria-selected={index === selected}
                onPointerDown={() => setSelected(index)}
                className="border-t border-line hover:bg-subtle aria-selected:bg-muted aria-selected:shadow-[inset_3px_0_0_var(--accent)]"
              >
                <td className="max-w-[22rem] truncate px-2 py-1 font-mono">
                  <Link
                    href={`/sessions/${encodeURIComponent(row.id)}`}
                    data-row-link
                    onFocus={() => setSelected(index)}
                    className="text-accent hover:underline focus:underline focus:outline-none"
                    title={escapeInvisible(row.id)}
                  >
                    <VisibleText text={row.id} />
                  </Link>
                  {row.imported && (
                    <span className="ml-1.5 rounded border border-line px-1 font-sans text-[10px] text-fg-muted">
                      imported
                    </span>
                  )}
                </td>
                <td className="hidden px-2 py-1 text-fg-muted sm:table-cell">
                  <Timestamp ms={Date.parse(row.first_call_at ?? '')} />
                </td>
                <td className="px-2 py-1">
                  <Timestamp ms={Date.parse(row.last_call_at ?? '')} />
                </td>
                <td className={num}>{row.calls}</td>
                <td
                  className={`${num} ${row.failed > 0 ? 'font-medium text-red-700 dark:text-red-300' : 'text-fg-muted'}`}
                >
                  {row.failed}
                </td>
                <td
                  className={`${num} hidden sm:table-cell ${row.denied > 0 ? 'font-medium text-orange-700 dark:text-orange-300' : 'text-fg-muted'}`}
                >
                  {row.denied}
                </td>
                <td
                  className={`${num} hidden md:table-cell ${row.running > 0 ? 'text-blue-700 dark:text-blue-300' : 'text-fg-muted'}`}
                >
                  {row.running}
                  {row.waiting > 0 && (
                    <span className="ml-1 text-amber-700 dark:text-amber-300" data-testid="session-waiting">
                      + {row.waiting} waiting
                    </span>
                  )}
                </td>
                <td className={`${num} hidden md:table-cell text-fg-muted`}>
                  {row.approval_wait_ms > 0 ? formatDuration(row.approval_wait_ms) : '—'}
                </td>
                <td className={num}>{formatDuration(row.wall_ms)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {rows.length === 0 && !query.isFetching && (
          <div className="p-6 text-center text-fg-muted" data-testid="sessions-empty">
            {filtered ? (
              <p>No session matches these filters.</p>
            ) : (
              <p>
                No sessions yet. Calls sent with a <code className="font-mono">session_id</code> are grouped here, one
                row per agent run.
              </p>
            )}
          </div>
        )}
      </div>
      <nav aria-label="Pages" className="flex flex-wrap items-center justify-between gap-2 text-xs text-fg-muted">
        <span>
          {rows.length} session{rows.length === 1 ? '' : 's'} shown
          <span data-keyboard-hint className="hidden sm:inline">
            {' '}
            · <kbd className="rounded border border-line px-1 font-mono">/</kbd> search,{' '}
            <kbd className="rounded border border-line px-1 font-mono">j</kbd>/
            <kbd className="rounded border border-line px-1 font-mono">k</kbd> move,{' '}
            <kbd className="rounded border border-line px-1 font-mono">Enter</kbd> open
          </span>
        </span>
        {query.hasNextPage && (
          <button
            type="button"
            onClick={loadMore}
            disabled={loadingMore}
            className="rounded border border-line px-2 py-0.5 text-accent hover:bg-muted disabled:opacity-60"
            data-testid="sessions-load-more"
          >
            {loadingMore ? 'Loading…' : 'Load more'}
          </button>
        )}
      </nav>
    </div>
  );
}
