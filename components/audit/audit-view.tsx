'use client';

import { keepPreviousData, useInfiniteQuery, useMutation } from '@tanstack/react-query';
import { ScrollText } from 'lucide-react';
import { useCallback, useEffect, useRef, useState } from 'react';
import {
  type AuditFilters,
  type AuditPageJson,
  auditSearch,
  fetchAuditPage,
  isFiltered,
  verifyAuditChain,
} from '@/lib/ui/audit-api';
import { isTypingTarget } from '../shortcuts-dialog';
import { AuditFiltersBar } from './audit-filters-bar';
import { AuditTable } from './audit-table';
import { VerifyChain } from './verify-chain';

/** Typing pauses this long before a text filter applies. */
const FILTER_DEBOUNCE_MS = 300;
/** While the page is visible the loaded entries are read again this often (new entries on top). */
const AUDIT_POLL_MS = 15_000;

const sameFilters = (a: AuditFilters, b: AuditFilters) =>
  a.kind === b.kind && a.principal === b.principal && a.target === b.target;

/** No entry: what the trail records, or that the filters match none. */
function AuditEmpty({ filtered, onClear }: { filtered: boolean; onClear: () => void }) {
  return (
    <div
      className="flex flex-col gap-2 rounded border border-dashed border-line px-3 py-3 text-[12px]"
      data-testid="audit-empty"
    >
      {filtered ? (
        <p>
          No entry matches these filters (principal and target match exactly).{' '}
          <button type="button" onClick={onClear} className="text-accent hover:underline">
            Clear the filters
          </button>
        </p>
      ) : (
        <>
          <p className="flex items-center gap-1.5 font-medium">
            <ScrollText size={14} className="text-accent" aria-hidden />
            Nothing recorded yet.
          </p>
          <p className="text-fg-muted">
            The audit trail records who did what, when and from where: approvals decided, policy and fault rule changes,
            keys made and revoked, logins (failed ones too) and logouts, imports, deleted traces and sessions, replays,
            cancels, MCP server reconnects and approval notices that could not be delivered. Each entry is chained to
            the one before by its hash, so an entry edited or removed afterwards shows in “Verify chain”.
          </p>
        </>
      )}
    </div>
  );
}

/**
 * The Audit page: the trail, newest first.
 * 1. The server renders the first page for the filters in the address bar; TanStack Query holds
 *    it (an infinite query: "Load more" follows `next_cursor`) and reads it again every 15 s.
 * 2. Filters (kind at once, principal and target after a pause) live in the address bar, so
 *    `/audit?target=<traceId>` links to everything done to one call.
 * 3. "Verify chain" asks the server to walk the hash chain, and marks the first broken entry.
 * 4. Keys: `/` focuses the principal filter, `v` verifies.
 */
export function AuditView({
  initial,
  initialFilters,
  kinds,
  renderedAt,
}: {
  initial: AuditPageJson;
  initialFilters: AuditFilters;
  kinds: readonly string[];
  renderedAt: number;
}) {
  const [filters, setFilters] = useState<AuditFilters>(initialFilters);
  const [text, setText] = useState({ principal: initialFilters.principal, target: initialFilters.target });
  const principalInput = useRef<HTMLInputElement>(null);

  useEffect(() => {
    const principal = text.principal.trim();
    const target = text.target.trim();
    if (principal === filters.principal && target === filters.target) return;
    const timer = setTimeout(() => setFilters((f) => ({ ...f, principal, target })), FILTER_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [text, filters.principal, filters.target]);
  useEffect(() => {
    window.history.replaceState(null, '', `/audit${auditSearch(filters)}`);
  }, [filters]);

  const applyNow = useCallback((change: Partial<AuditFilters>) => {
    setFilters((f) => ({ ...f, ...change }));
    setText((t) => ({
      principal: change.principal ?? t.principal,
      target: change.target ?? t.target,
    }));
  }, []);
  const clear = useCallback(() => applyNow({ kind: '', principal: '', target: '' }), [applyNow]);

  const query = useInfiniteQuery({
    queryKey: ['audit', filters.kind, filters.principal, filters.target],
    queryFn: ({ pageParam }) => fetchAuditPage(filters, pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.next_cursor,
    initialData: sameFilters(filters, initialFilters) ? { pages: [initial], pageParams: [null] } : undefined,
    initialDataUpdatedAt: renderedAt,
    // The server's first page is not read again at once, only at the next poll.
    staleTime: AUDIT_POLL_MS,
    // While new filters load, the last list stays (dimmed) instead of a blank page.
    placeholderData: keepPreviousData,
    refetchInterval: AUDIT_POLL_MS,
    refetchOnWindowFocus: true,
  });
  const entries = query.data?.pages.flatMap((page) => page.entries) ?? [];

  const verify = useMutation({ mutationFn: verifyAuditChain });
  const badSeq = verify.data && !verify.data.ok ? verify.data.first_bad_seq : null;
  const runVerify = verify.mutate;

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.altKey || event.metaKey || event.ctrlKey || event.shiftKey) return;
      if (isTypingTarget(event.target) || document.querySelector('dialog[open]')) return;
      if (event.key === '/') {
        event.preventDefault();
        principalInput.current?.focus();
      } else if (event.key === 'v') {
        event.preventDefault();
        runVerify();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [runVerify]);

  const filtered = isFiltered(filters);
  return (
    <div className="flex flex-col gap-3" data-testid="audit-page">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <h1 className="text-base font-semibold">Audit</h1>
        <p className="text-xs text-fg-muted">
          Every decision, change, login and destructive action, newest first: who (the key, never what a client says of
          itself), from which address, on what. Append-only and hash-chained.
        </p>
      </div>

      <AuditFiltersBar
        kinds={kinds}
        text={text}
        onText={setText}
        kind={filters.kind}
        onKind={(kind) => applyNow({ kind })}
        filtered={filtered || text.principal !== '' || text.target !== ''}
        onClear={clear}
        principalInput={principalInput}
        verify={<VerifyChain verify={verify} />}
      />

      {query.isError ? (
        <p role="alert" className="text-[12px] text-red-700 dark:text-red-300" data-testid="audit-load-error">
          Could not read the trail: {query.error.message}.{entries.length > 0 ? ' Showing the last known entries.' : ''}
        </p>
      ) : null}

      {entries.length === 0 && query.isPending ? (
        <p className="text-[12px] text-fg-muted">Loading…</p>
      ) : entries.length === 0 && !query.isError ? (
        <AuditEmpty filtered={filtered} onClear={clear} />
      ) : entries.length > 0 ? (
        <AuditTable
          entries={entries}
          stale={query.isPlaceholderData}
          badSeq={badSeq}
          onPrincipal={(principal) => applyNow({ principal })}
          onTarget={(target) => applyNow({ target })}
        />
      ) : null}

      {badSeq !== null && entries.length > 0 && !entries.some((entry) => entry.seq === badSeq) ? (
        <p className="text-[12px] text-red-700 dark:text-red-300" data-testid="audit-bad-entry-hidden">
          Entry #{badSeq} is not in the list shown{filtered ? ' (the filters hide it, or it is further down)' : ''}:
          load more to reach it.
        </p>
      ) : null}

      <nav aria-label="Pages" className="flex flex-wrap items-center justify-between gap-2 text-xs text-fg-muted">
        <span data-testid="audit-count">
          {entries.length} {entries.length === 1 ? 'entry' : 'entries'} shown
        </span>
        {query.hasNextPage ? (
          <button
            type="button"
            onClick={() => void query.fetchNextPage()}
            disabled={query.isFetchingNextPage}
            className="rounded border border-line px-2 py-0.5 text-accent hover:bg-muted disabled:opacity-60"
            data-testid="audit-load-more"
          >
            {query.isFetchingNextPage ? 'Loading…' : 'Load more'}
          </button>
        ) : null}
      </nav>
    </div>
  );
}
