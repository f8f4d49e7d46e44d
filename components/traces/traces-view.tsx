'use client';

import { useQuery } from '@tanstack/react-query';
import { Download } from 'lucide-react';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { summarizeCall } from '@/lib/ui/call-summary';
import { formatDuration } from '@/lib/ui/format';
import type { ActionOutcome } from '@/lib/ui/trace-actions';
import { apiExportUrl, filtersToSearch, hasFilters, type TraceFilters } from '@/lib/ui/trace-filters';
import { SessionReplayButton } from '../replay/session-replay-button';
import { useTraceEvents } from '../use-trace-events';
import { FirstCallHint } from './first-call-hint';
import { ListFooter } from './list-footer';
import { ListNotice } from './list-notice';
import { fetchFirstPage, type ListPage } from './list-page';
import { LiveIndicator } from './live-indicator';
import { TraceFiltersBar } from './trace-filters-bar';
import { TraceRow } from './trace-row';
import { useKeptSelection } from './use-kept-selection';
import { useListKeys } from './use-list-keys';

/** Events arriving closer together than this cause one refetch. */
const REFETCH_THROTTLE_MS = 250;

const th = 'px-2 py-1.5 font-medium';

/**
 * The traces list: filters, a dense table, live updates and keyboard navigation.
 * 1. The server renders the first page; TanStack Query holds it as initial data.
 * 2. On the first page, each trace event (SSE) refetches it (throttled), so new calls appear and
 *    running ones update in place; polling takes over while the stream is down, and a reconnect
 *    refetches what was missed. Older pages (keyset cursor in the URL) are static.
 * 3. j/k move the selection, Enter opens it, / focuses the search, p pauses; the selection is
 *    kept (per filter) across a visit to a trace and back.
 */
export function TracesView({
  initialPage,
  filters,
  tools,
  origin,
  databaseEmpty,
  renderedAt,
  invalidCursor = false,
}: {
  initialPage: ListPage;
  filters: TraceFilters;
  tools: string[];
  origin: string;
  databaseEmpty: boolean;
  renderedAt: number;
  /** The URL's page cursor was refused; the newest calls are shown instead. */
  invalidCursor?: boolean;
}) {
  const router = useRouter();
  const liveEnabled = !filters.cursor;
  const [paused, setPaused] = useState(false);
  const [pending, setPending] = useState<Set<string>>(() => new Set());
  const [selected, setSelected] = useState(-1);
  const [connected, setConnected] = useState(false);
  const [notice, setNotice] = useState<(ActionOutcome & { testId?: string }) | null>(
    invalidCursor
      ? {
          ok: false,
          message: 'That page link is no longer valid — showing the newest calls.',
          testId: 'invalid-cursor',
        }
      : null,
  );
  const search = filtersToSearch(filters);

  // A refused cursor stays out of the address bar, so a reload or a shared link is clean.
  useEffect(() => {
    if (invalidCursor) window.history.replaceState(null, '', `/${search}`);
  }, [invalidCursor, search]);

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
  const summaries = useMemo(() => rows.map((row) => summarizeCall(row.tool, row.argumentsPreview)), [rows]);
  const slowestMs = rows.reduce((max, row) => Math.max(max, row.latencyMs ?? 0), 0);

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
        if (event.type === 'begin') setPending((p) => new Set(p).add(event.trace_id));
        return;
      }
      if (throttle.current) return;
      throttle.current = setTimeout(() => {
        throttle.current = null;
        void refetch();
      }, REFETCH_THROTTLE_MS);
    },
    {
      enabled: liveEnabled,
      // A list of one session or tool hears only its calls: "N new" while paused counts those.
      session: filters.session,
      tool: filters.tool,
      // after a dropped stream, catch up with what was missed (unless paused: resume refetches)
      onReconnect: () => {
        if (!pausedRef.current) void refetch();
      },
    },
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
  const focusRow = useCallback((index: number, block: ScrollLogicalPosition = 'nearest') => {
    const link = tableRef.current?.querySelectorAll<HTMLAnchorElement>('a[data-row-link]')[index];
    link?.focus({ preventScroll: true });
    link?.closest('tr')?.scrollIntoView({ block });
  }, []);

  useKeptSelection({
    key: search,
    ids: rows.map((row) => row.id),
    selectedId: rows[selected]?.id ?? null,
    restore: (index) => {
      setSelected(index);
      focusRow(index, 'center');
    },
  });

  const onAction = useCallback(
    (outcome: ActionOutcome) => {
      setNotice(outcome);
      if (!outcome.ok) return;
      if (liveEnabled) void refetch();
      else router.refresh();
    },
    [liveEnabled, refetch, router],
  );

  useListKeys({ rows, selected, setSelected, focusRow, togglePause: liveEnabled ? togglePause : undefined });

  const filtered = hasFilters(filters);
  const total = page.total ?? null;

  return (
    <div className="flex flex-col gap-3">
      <div className="flex flex-wrap items-center justify-between gap-x-3 gap-y-1">
        <div className="flex items-baseline gap-3">
          <h1 className="text-base font-semibold">Tool calls</h1>
          {total !== null && (
            <span className="text-xs tabular-nums text-fg-muted" data-testid="traces-total">
              {total.toLocaleString('en-US')} call{total === 1 ? '' : 's'}
              {filtered ? ' match' : ''}
            </span>
          )}
          <a
            href={apiExportUrl(filters, renderedAt)}
            onClick={(event) => {
              // a relative range ("last 15 minutes") means up to now, not up to when the page loaded
              event.currentTarget.href = apiExportUrl(filters, Date.now());
            }}
            download
            className="inline-flex items-center gap-1 text-xs text-fg-muted hover:text-fg hover:underline"
            title="Download every call matching the current filter, one JSON object per line"
            data-testid="export-jsonl"
          >
            <Download size={12} aria-hidden />
            Export JSON Lines
          </a>
          {filters.session && <SessionReplayButton sessionId={filters.session} />}
        </div>
        <LiveIndicator
          connection={connection}
          paused={paused}
          pending={pending.size}
          onToggle={togglePause}
          disabledReason={liveEnabled ? undefined : 'Older page: live updates are off'}
        />
      </div>
      <TraceFiltersBar filters={filters} tools={tools} />
      {notice && <ListNotice notice={notice} onDismiss={() => setNotice(null)} />}
      {query.isError && (
        <p role="alert" className="text-xs text-red-700 dark:text-red-300">
          Could not refresh the list ({query.error instanceof Error ? query.error.message : String(query.error)}).
          Showing the last rows received; retrying.
        </p>
      )}
      <div className="overflow-x-auto rounded border border-line">
        <table className="w-full border-collapse text-left" data-testid="traces-table">
          <caption className="sr-only">Recorded tool calls, newest first. Use j and k to move, Enter to open.</caption>
          <thead className="bg-subtle text-[11px] uppercase tracking-wide text-fg-muted">
            <tr>
              <th scope="col" className={`${th} hidden sm:table-cell`}>
                Time
              </th>
              <th scope="col" className={th}>
                Tool
              </th>
              <th scope="col" className={th}>
                Status
              </th>
              <th
                scope="col"
                className={`${th} hidden text-right sm:table-cell`}
                title={`Bars use a log scale; a full bar is the slowest call on this page (${formatDuration(slowestMs)})`}
              >
                Latency
              </th>
              <th scope="col" className={`${th} hidden md:table-cell`}>
                Arguments
              </th>
              <th scope="col" className={`${th} hidden text-right lg:table-cell`}>
                Attempts
              </th>
              <th scope="col" className={`${th} hidden lg:table-cell`}>
                Session
              </th>
              <th scope="col" className={`${th} hidden lg:table-cell`}>
                By
              </th>
              <th scope="col" className={`${th} hidden xl:table-cell`}>
                Tool call id
              </th>
              <th scope="col" className={`${th} hidden md:table-cell`}>
                Notes
              </th>
              <th scope="col" className="w-8 px-1">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody ref={tableRef}>
            {rows.map((row, index) => (
              <TraceRow
                key={row.id}
                row={row}
                summary={summaries[index] ?? ''}
                selected={index === selected}
                fresh={fresh.has(row.id)}
                slowestMs={slowestMs}
                onSelect={() => setSelected(index)}
                onAction={onAction}
              />
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
      <ListFooter filters={filters} count={rows.length} nextCursor={page.nextCursor} />
    </div>
  );
}
