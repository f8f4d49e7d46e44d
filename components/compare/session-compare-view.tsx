'use client';

import { useQuery } from '@tanstack/react-query';
import { ArrowLeft, GitCompareArrows } from 'lucide-react';
import Link from 'next/link';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { formatDuration, shortId } from '@/lib/ui/format';
import { isUnfinished } from '@/lib/ui/live-trace';
import type { SummaryJson } from '@/lib/ui/summary-from-json';
import { isTypingTarget } from '../shortcuts-dialog';
import { StatusBadge } from '../status';
import { LiveIndicator } from '../traces/live-indicator';
import { useTraceEvents } from '../use-trace-events';
import { ChangeBadge } from './compare-view';

/** One call of the original session and its counterpart in the replay (`GET /api/v1/sessions/:id/compare/:other`). */
export interface SessionPair {
  original: SummaryJson | null;
  replay: SummaryJson | null;
  outcome_changed: boolean;
  output_changed: boolean;
  compare_url: string | null;
}

export interface SessionComparison {
  session_id: string;
  other_session_id: string;
  pairs: SessionPair[];
}

const REFETCH_THROTTLE_MS = 300;
const POLL_MS = 2_000;

/** A pair counts as changed when its outcome or output changed, or a call has no counterpart. */
const changed = (p: SessionPair) => p.outcome_changed || p.output_changed || !p.original || !p.replay;

async function fetchComparison(a: string, b: string): Promise<SessionComparison> {
  const response = await fetch(`/api/v1/sessions/${encodeURIComponent(a)}/compare/${encodeURIComponent(b)}`, {
    cache: 'no-store',
  });
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
    throw new Error(body.error?.message ?? `HTTP ${response.status}`);
  }
  return (await response.json()) as SessionComparison;
}

function Side({ call }: { call: SummaryJson | null }) {
  if (!call) return <span className="text-xs italic text-fg-muted">no counterpart</span>;
  return (
    <span className="inline-flex items-center gap-1.5 whitespace-nowrap">
      <StatusBadge status={call.status} />
      <span className="tabular-nums text-fg-muted">{formatDuration(call.latency_ms)}</span>
      {call.error_code && (
        <code className="font-mono text-[11px] text-red-700 dark:text-red-300">{call.error_code}</code>
      )}
      <Link
        href={`/traces/${encodeURIComponent(call.id)}`}
        className="font-mono text-[11px] text-accent hover:underline"
        title={call.id}
      >
        {shortId(call.id)}
      </Link>
    </span>
  );
}

/**
 * A session and its replay, call by call: each pair with whether its outcome and its output
 * changed, and a link to the pair's compare view. Live while replayed calls still run.
 * Keys: `j` / `k` move between pairs, Enter opens the pair's comparison, `o` shows only changed pairs.
 */
export function SessionCompareView({ sessionId, otherId }: { sessionId: string; otherId: string }) {
  const query = useQuery({
    queryKey: ['session-compare', sessionId, otherId],
    queryFn: () => fetchComparison(sessionId, otherId),
    staleTime: Number.POSITIVE_INFINITY,
  });
  const pairs = query.data?.pairs ?? [];
  const running = pairs.some(
    (p) => (p.original && isUnfinished(p.original.status)) || (p.replay && isUnfinished(p.replay.status)),
  );
  const { refetch } = query;
  const throttle = useRef<ReturnType<typeof setTimeout> | null>(null);
  const connection = useTraceEvents(
    (event) => {
      if (event.session_id !== otherId && event.session_id !== sessionId) return;
      if (throttle.current) return;
      throttle.current = setTimeout(() => {
        throttle.current = null;
        void refetch();
      }, REFETCH_THROTTLE_MS);
    },
    { enabled: running, onReconnect: () => void refetch() },
  );
  useEffect(
    () => () => {
      if (throttle.current) clearTimeout(throttle.current);
    },
    [],
  );
  const polling = running && connection.state !== 'live';
  useEffect(() => {
    if (!polling) return;
    const timer = setInterval(() => void refetch(), POLL_MS);
    return () => clearInterval(timer);
  }, [polling, refetch]);

  const [onlyChanged, setOnlyChanged] = useState(false);
  const changedCount = pairs.filter(changed).length;
  const shown = useMemo(
    () => pairs.map((pair, index) => ({ pair, index })).filter(({ pair }) => !onlyChanged || changed(pair)),
    [pairs, onlyChanged],
  );

  const body = useRef<HTMLTableSectionElement>(null);
  const move = useCallback((step: 1 | -1) => {
    const links = [...(body.current?.querySelectorAll<HTMLElement>('[data-pair-link]') ?? [])];
    if (links.length === 0) return;
    const at = links.indexOf(document.activeElement as HTMLElement);
    const next = at < 0 ? 0 : Math.min(links.length - 1, Math.max(0, at + step));
    links[next]?.focus();
    links[next]?.closest('tr')?.scrollIntoView({ block: 'nearest' });
  }, []);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.metaKey || event.ctrlKey || event.altKey || isTypingTarget(event.target)) return;
      if (event.key === 'j' || event.key === 'k') {
        event.preventDefault();
        move(event.key === 'j' ? 1 : -1);
      } else if (event.key === 'o') {
        event.preventDefault();
        setOnlyChanged((was) => !was);
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [move]);

  const sessionLink = (id: string, testId: string) => (
    <Link
      href={`/?session=${encodeURIComponent(id)}`}
      className="font-mono text-accent hover:underline"
      data-testid={testId}
    >
      {id}
    </Link>
  );
  const th = 'px-2 py-1.5 font-medium';

  return (
    <article className="flex flex-col gap-3" data-testid="session-compare">
      <header className="flex flex-col gap-1.5">
        <Link
          href={`/?session=${encodeURIComponent(sessionId)}`}
          className="inline-flex w-fit items-center gap-1 text-xs text-fg-muted hover:text-fg"
        >
          <ArrowLeft size={12} aria-hidden /> Session calls
        </Link>
        <div className="flex flex-wrap items-baseline gap-x-3 gap-y-1">
          <h1 className="text-base font-semibold">Session replay</h1>
          <span className="text-xs">
            <span className="text-fg-muted">A</span> {sessionLink(sessionId, 'session-a')}{' '}
            <span className="text-fg-muted">→ B</span> {sessionLink(otherId, 'session-b')}
          </span>
          {running && <LiveIndicator connection={connection} />}
        </div>
        {query.data && (
          <div className="flex flex-wrap items-center gap-3 text-xs">
            <span className="tabular-nums" data-testid="session-compare-counts">
              {pairs.length} call{pairs.length === 1 ? '' : 's'} ·{' '}
              <span className={changedCount > 0 ? 'font-semibold text-amber-800 dark:text-amber-300' : ''}>
                {changedCount} changed
              </span>{' '}
              · {pairs.length - changedCount} unchanged
            </span>
            <label className="inline-flex items-center gap-1">
              <input
                type="checkbox"
                checked={onlyChanged}
                onChange={(event) => setOnlyChanged(event.target.checked)}
                aria-keyshortcuts="o"
                data-testid="only-changed"
              />
              Only changed <kbd className="rounded border border-line px-1 font-mono text-[10px]">o</kbd>
            </label>
            <span className="text-fg-muted">
              <kbd className="font-mono">j</kbd>/<kbd className="font-mono">k</kbd> move · Enter opens the pair’s
              comparison
            </span>
          </div>
        )}
      </header>
      {query.isPending && <p className="text-xs text-fg-muted">Loading the comparison…</p>}
      {query.isError && (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300" data-testid="session-compare-error">
          Could not compare the sessions: {query.error.message}
        </p>
      )}
      {query.data && (
        <div className="overflow-x-auto rounded border border-line">
          <table className="w-full border-collapse text-left text-xs" data-testid="session-pairs">
            <caption className="sr-only">
              Each call of session A and its replay in session B, in recorded order.
            </caption>
            <thead className="bg-subtle text-[11px] uppercase tracking-wide text-fg-muted">
              <tr>
                <th scope="col" className={`${th} w-8 text-right`}>
                  #
                </th>
                <th scope="col" className={`${th} w-[30%]`}>
                  Call
                </th>
                <th scope="col" className={th}>
                  A · original
                </th>
                <th scope="col" className={th}>
                  B · replay
                </th>
                <th scope="col" className={th}>
                  Changes
                </th>
                <th scope="col" className={`${th} w-24`}>
                  <span className="sr-only">Compare</span>
                </th>
              </tr>
            </thead>
            <tbody ref={body}>
              {shown.map(({ pair, index }) => {
                const call = pair.original ?? pair.replay;
                const isChanged = changed(pair);
                return (
                  <tr
                    key={`${pair.original?.id ?? '-'}:${pair.replay?.id ?? '-'}`}
                    className={`border-t border-line align-top ${isChanged ? 'bg-amber-50/60 dark:bg-amber-950/20' : ''}`}
                    data-testid="session-pair"
                    data-changed={isChanged}
                    data-tool={call?.tool}
                  >
                    <td
                      className={`px-2 py-1.5 text-right tabular-nums text-fg-muted ${isChanged ? 'border-l-2 border-amber-500' : 'border-l-2 border-transparent'}`}
                    >
                      {index + 1}
                    </td>
                    <td className="max-w-0 px-2 py-1.5">
                      <div className="font-mono font-medium">{call?.tool}</div>
                      <div
                        className="truncate font-mono text-[11px] text-fg-muted"
                        title={call?.arguments_preview ?? ''}
                      >
                        {call?.arguments_preview ?? ''}
                      </div>
                    </td>
                    <td className="px-2 py-1.5">
                      <Side call={pair.original} />
                    </td>
                    <td className="px-2 py-1.5">
                      <Side call={pair.replay} />
                    </td>
                    <td className="px-2 py-1.5">
                      <span className="inline-flex flex-wrap gap-1">
                        <ChangeBadge changed={pair.outcome_changed} what="outcome" testId="pair-outcome" />
                        <ChangeBadge changed={pair.output_changed} what="output" testId="pair-output" />
                      </span>
                    </td>
                    <td className="px-2 py-1.5 text-right">
                      {pair.compare_url ? (
                        <Link
                          href={pair.compare_url}
                          className="inline-flex items-center gap-1 rounded border border-line px-1.5 py-0.5 text-fg-muted hover:bg-muted hover:text-fg"
                          data-pair-link
                          data-testid="pair-compare"
                        >
                          <GitCompareArrows size={12} aria-hidden /> Compare
                        </Link>
                      ) : (
                        <span className="text-fg-muted">—</span>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          {shown.length === 0 && (
            <p className="p-4 text-center text-fg-muted">
              {pairs.length === 0 ? 'Neither session has calls.' : 'No pair changed.'}
            </p>
          )}
        </div>
      )}
    </article>
  );
}
