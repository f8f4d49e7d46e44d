'use client';

import { useQuery } from '@tanstack/react-query';
import { ArrowRight } from 'lucide-react';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { TracePage } from '@/lib/db/trace-store';
import { formatDuration } from '@/lib/ui/format';
import { type SummaryJson, summaryFromJson } from '@/lib/ui/summary-from-json';
import { apiListUrl, filtersToSearch, hasFilters, type TraceFilters } from '@/lib/ui/trace-filters';
import { StatusBadge } from '../status';
import { Timestamp } from '../timestamp';
import { useTraceEvents } from '../use-trace-events';
import { FirstCallHint } from './first-call-hint';
import { LiveIndicator } from './live-indicator';
import { FILTER_TEXT_ID, TraceFiltersBar } from './trace-filters-bar';
import { TraceFlags } from './trace-flags';

const PAGE_SIZE = 50;
/** Events arriving closer together than this cause one refetch. */
const REFETCH_THROTTLE_MS = 250;

async function fetchFirstPage(filters: TraceFilters): Promise<TracePage> {
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

function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}

/**
 * The traces list: filters, a dense table, live updates and keyboard navigation.
 * 1. The server renders the first page; TanStack Query holds it as initial data.
 * 2. On the first page, each trace event (SSE) refetches it (throttled), so new calls appear and
 *    running ones update in place; polling takes over while the stream is down. Older pages
 *    (keyset cursor in the URL) are static.
 * 3. j/k move the selection, Enter opens it, / focuses the search, p pauses.
 */
export function TracesView({
  initialPage,
  filters,
  tools,
  origin,
  databaseEmpty,
  renderedAt,
}: {
  initialPage: TracePage;
  filters: TraceFilters;
  tools: string[];
  origin: string;
  databaseEmpty: boolean;
  renderedAt: number;
}) {
  const router = useRouter();
  const liveEnabled = !filters.cursor;
  const [paused, setPaused] = useState(false);
  const [pending, setPending] = useState<Set<string>>(() => new Set());
  const [selected, setSelected] = useState(-1);
  const [connected, setConnected] = useState(false);
  const search = filtersToSearch(filters);

  const query = useQuery({
    // renderedAt: each server render starts from its own fresh page, not an older cached one.
    queryKey: ['traces', search, renderedAt],
    queryFn: () => fetchFirstPage(filters),
    initialData: initialPage,
    initialDataUpdatedAt: renderedAt,
    staleTime: Number.POSITIVE_INFINITY,
    enabled: liveEnabled && !paused,
    refetchInterval: liveEnabled && !paused && !connected ? 3000 : false,
  });
  const page = query.data;
  const rows = page.items;

  // Rows not seen before get a brief highlight.
  const seen = useRef<Set<string> | null>(null);
  const arrived = useRef<Set<string>>(new Set());
  if (seen.current === null) seen.current = new Set(initialPage.items.map((r) => r.id));
  const fresh = new Set<string>();
  for (const row of rows) {
    if (!seen.current.has(row.id)) {
      seen.current.add(row.id);
      arrived.current.add(row.id);
    }
    if (arrived.current.has(row.id)) fresh.add(row.id);
  }

  const throttle = useRef<ReturnType<typeof setTimeout> | null>(null);
  const refetch = query.refetch;
  const pausedRef = useRef(paused);
  pausedRef.current = paused;
  const connection = useTraceEvents(
    (event) => {
      if (pausedRef.current) {
        if (event.type === 'begin') setPending((p) => new Set(p).add(event.id));
        return;
      }
      if (throttle.current) return;
      throttle.current = setTimeout(() => {
        throttle.current = null;
        void refetch();
      }, REFETCH_THROTTLE_MS);
    },
    { enabled: liveEnabled, onReconnect: () => void refetch() },
  );
  useEffect(() => setConnected(connection.state === 'live'), [connection.state]);
  useEffect(
    () => () => {
      if (throttle.current) clearTimeout(throttle.current);
    },
    [],
  );

  const togglePause = useCallback(() => {
    setPaused((was) => {
      if (was) {
        setPending(new Set());
        void refetch();
      }
      return !was;
    });
  }, [refetch]);

  const tableRef = useRef<HTMLTableSectionElement>(null);
  const focusRow = useCallback((index: number) => {
    const link = tableRef.current?.querySelectorAll<HTMLAnchorElement>('a[data-row-link]')[index];
    link?.focus();
    link?.closest('tr')?.scrollIntoView({ block: 'nearest' });
  }, []);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.metaKey || event.ctrlKey || event.altKey || isTyping(event.target)) return;
      if (event.key === '/') {
        event.preventDefault();
        const input = document.getElementById(FILTER_TEXT_ID) as HTMLInputElement | null;
        input?.focus();
        input?.select();
      } else if (event.key === 'j' || event.key === 'k') {
        if (rows.length === 0) return;
        event.preventDefault();
        const next =
          event.key === 'j' ? Math.min(rows.length - 1, selected + 1) : Math.max(0, selected < 0 ? 0 : selected - 1);
        setSelected(next);
        focusRow(next);
      } else if (event.key === 'Enter') {
        if (event.target instanceof HTMLAnchorElement || event.target instanceof HTMLButtonElement) return;
        const row = rows[selected];
        if (row) router.push(`/traces/${row.id}`);
      } else if (event.key === 'p' && liveEnabled) {
        togglePause();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [rows, selected, router, focusRow, togglePause, liveEnabled]);

  const filtered = hasFilters(filters);

  return (
    <div className="flex flex-col gap-3">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h1 className="text-base font-semibold">Tool calls</h1>
        <LiveIndicator
          connection={connection}
          paused={paused}
          pending={pending.size}
          onToggle={togglePause}
          disabledReason={liveEnabled ? undefined : 'Older page: live updates are off'}
        />
      </div>
      <TraceFiltersBar filters={filters} tools={tools} />
      {query.isError && (
        <p role="alert" className="text-xs text-red-700 dark:text-red-300">
          Could not refresh the list: {String(query.error)}
        </p>
      )}
      <div className="overflow-x-auto rounded border border-line">
        <table className="w-full border-collapse text-left" data-testid="traces-table">
          <caption className="sr-only">Recorded tool calls, newest first. Use j and k to move, Enter to open.</caption>
          <thead className="bg-subtle text-[11px] uppercase tracking-wide text-fg-muted">
            <tr>
              <th scope="col" className="px-2 py-1.5 font-medium">
                Time
              </th>
              <th scope="col" className="px-2 py-1.5 font-medium">
                Tool
              </th>
              <th scope="col" className="px-2 py-1.5 font-medium">
                Status
              </th>
              <th scope="col" className="px-2 py-1.5 text-right font-medium">
                Latency
              </th>
              <th scope="col" className="px-2 py-1.5 text-right font-medium">
                Attempts
              </th>
              <th scope="col" className="px-2 py-1.5 font-medium">
                Session
              </th>
              <th scope="col" className="px-2 py-1.5 font-medium">
                Tool call id
              </th>
              <th scope="col" className="px-2 py-1.5 font-medium">
                Notes
              </th>
            </tr>
          </thead>
          <tbody ref={tableRef}>
            {rows.map((row, index) => (
              <tr
                key={row.id}
                data-testid="trace-row"
                data-trace-id={row.id}
                data-status={row.status}
                data-tool={row.tool}
                aria-selected={index === selected}
                onClick={(event) => {
                  if ((event.target as HTMLElement).closest('a,button')) return;
                  router.push(`/traces/${row.id}`);
                }}
                className={`cursor-pointer border-t border-line hover:bg-subtle aria-selected:bg-muted aria-selected:shadow-[inset_3px_0_0_var(--accent)] ${fresh.has(row.id) ? 'row-arrive' : ''}`}
              >
                <td className="whitespace-nowrap px-2 py-1">
                  <Link
                    href={`/traces/${row.id}`}
                    data-row-link
                    onFocus={() => setSelected(index)}
                    className="text-accent hover:underline"
                    aria-label={`Open ${row.tool} call ${row.toolCallId}, ${row.status}`}
                  >
                    <Timestamp ms={row.createdAt} />
                  </Link>
                </td>
                <td className="whitespace-nowrap px-2 py-1 font-mono text-[12px]">{row.tool}</td>
                <td className="whitespace-nowrap px-2 py-1">
                  <span className="inline-flex items-center gap-1.5">
                    <StatusBadge status={row.status} />
                    {row.errorCode && <span className="font-mono text-[11px] text-fg-muted">{row.errorCode}</span>}
                  </span>
                </td>
                <td className="whitespace-nowrap px-2 py-1 text-right tabular-nums">{formatDuration(row.latencyMs)}</td>
                <td className="px-2 py-1 text-right tabular-nums">{row.attemptCount}</td>
                <td className="max-w-40 truncate px-2 py-1 font-mono text-[12px]">
                  {row.sessionId ? (
                    <Link
                      href={`/${filtersToSearch({ session: row.sessionId })}`}
                      className="text-fg-muted hover:text-fg hover:underline"
                      title={`Only session ${row.sessionId}`}
                    >
                      {row.sessionId}
                    </Link>
                  ) : (
                    <span className="text-fg-muted">—</span>
                  )}
                </td>
                <td className="max-w-56 truncate px-2 py-1 font-mono text-[12px] text-fg-muted" title={row.toolCallId}>
                  {row.toolCallId}
                </td>
                <td className="px-2 py-1">
                  <TraceFlags flags={row.flags} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {rows.length === 0 &&
          (databaseEmpty && !filtered && !filters.cursor ? (
            <FirstCallHint origin={origin} />
          ) : (
            <div className="p-6 text-center text-fg-muted" data-testid="traces-empty">
              <p>
                {page.partial
                  ? 'No match among the most recent calls searched.'
                  : `No calls match these filters${liveEnabled ? ' yet' : ''}.`}
              </p>
              {filtered && (
                <Link href="/" className="text-accent hover:underline">
                  Clear the filters
                </Link>
              )}
            </div>
          ))}
      </div>
      {page.partial && (
        <p className="text-xs text-fg-muted" data-testid="partial-page">
          The search stopped after a window of recent calls to stay fast; older matches may exist.{' '}
          <span className="text-fg">Older →</span> searches further back.
        </p>
      )}
      <nav aria-label="Pages" className="flex items-center justify-between text-xs text-fg-muted">
        <span>
          {rows.length} call{rows.length === 1 ? '' : 's'} on this page ·{' '}
          <kbd className="rounded border border-line px-1 font-mono">j</kbd>/
          <kbd className="rounded border border-line px-1 font-mono">k</kbd> move,{' '}
          <kbd className="rounded border border-line px-1 font-mono">Enter</kbd> open,{' '}
          <kbd className="rounded border border-line px-1 font-mono">p</kbd> pause
        </span>
        <span className="flex gap-3">
          {filters.cursor && (
            <Link href={`/${filtersToSearch(filters, { cursor: undefined })}`} className="text-accent hover:underline">
              ← Newest
            </Link>
          )}
          {page.nextCursor && (
            <Link
              href={`/${filtersToSearch(filters, { cursor: page.nextCursor })}`}
              className="inline-flex items-center gap-1 text-accent hover:underline"
              data-testid="older-page"
            >
              Older <ArrowRight size={12} aria-hidden />
            </Link>
          )}
        </span>
      </nav>
    </div>
  );
}
