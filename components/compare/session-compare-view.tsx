'use client';

import { useQuery } from '@tanstack/react-query';
import { ArrowLeft, GitCompareArrows, Unlink } from 'lucide-react';
import Link from 'next/link';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { formatDuration, shortId } from '@/lib/ui/format';
import { isUnfinished } from '@/lib/ui/live-trace';
import {
  differs,
  MATCHED_BY_LABEL,
  pairCounts,
  type SessionComparisonJson,
  type SessionPairJson,
} from '@/lib/ui/session-pairs';
import type { SummaryJson } from '@/lib/ui/summary-from-json';
import { isTypingTarget } from '../shortcuts-dialog';
import { StatusBadge } from '../status';
import { LiveIndicator } from '../traces/live-indicator';
import { useTraceEvents } from '../use-trace-events';
import { ChangeBadge } from './compare-view';
import { IgnoredToggle } from './ignored-toggle';

const REFETCH_THROTTLE_MS = 300;
const POLL_MS = 2_000;

async function fetchComparison(a: string, b: string): Promise<SessionComparisonJson> {
  const response = await fetch(`/api/v1/sessions/${encodeURIComponent(a)}/compare/${encodeURIComponent(b)}`, {
    cache: 'no-store',
  });
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { error?: { message?: string } };
    throw new Error(body.error?.message ?? `HTTP ${response.status}`);
  }
  return (await response.json()) as SessionComparisonJson;
}

function Side({ call, missing }: { call: SummaryJson | null; missing: string }) {
  if (!call) return <span className="text-xs italic text-fg-muted">{missing}</span>;
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

/** What a pair's row says of it: pending, a call alone on one side, or the outcome and output badges. */
function PairChanges({ pair, showIgnored }: { pair: SessionPairJson; showIgnored: boolean }) {
  if (pair.verdict === 'only_in_a' || pair.verdict === 'only_in_b') {
    return (
      <span
        className="inline-flex items-center rounded border border-line bg-subtle px-1.5 py-0.5 text-[11px] font-medium"
        data-testid="pair-only"
        title="No call of the other session replays it, has its tool call id, or its tool and arguments"
      >
        only in {pair.verdict === 'only_in_a' ? 'A' : 'B'}
      </span>
    );
  }
  const pending = pair.verdict === 'pending';
  return (
    <span className="flex flex-col gap-1">
      <span className="inline-flex flex-wrap gap-1">
        <ChangeBadge changed={pair.outcome_changed} pending={pending} what="outcome" testId="pair-outcome" />
        <ChangeBadge changed={pair.output_changed} pending={pending} what="output" testId="pair-output" />
      </span>
      {pair.matched_by && (
        <span className="text-[11px] text-fg-muted" data-testid="pair-matched-by" data-matched-by={pair.matched_by}>
          paired by {MATCHED_BY_LABEL[pair.matched_by]}
        </span>
      )}
      {pair.ignored_count > 0 && (
        <span className="text-[11px] text-fg-muted" data-testid="pair-ignored" data-count={pair.ignored_count}>
          {pair.ignored_count} volatile ignored
          {showIgnored && (
            <span className="ml-1 inline-flex flex-wrap gap-x-1.5 opacity-70">
              {pair.ignored.map((change) => (
                <code key={`${change.kind}:${change.path}`} className="font-mono line-through" title={change.rule}>
                  {change.path}
                </code>
              ))}
              {pair.ignored_count > pair.ignored.length && <span>…</span>}
            </span>
          )}
        </span>
      )}
    </span>
  );
}

/**
 * Two sessions call by call — usually a session and its replay: calls paired by identity (a call
 * and its replay, the same tool call id, the same tool and arguments; never by position alone),
 * each pair with whether its outcome and output changed (volatile output paths aside, shown on
 * request), "pending" while a call of it runs, and a link to the pair's compare view; a call
 * without a pair is "only in A" / "only in B", and sessions without any pair say so. Live while
 * calls still run.
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
  const [showIgnored, setShowIgnored] = useState(false);
  const counts = pairCounts(pairs);
  const unrelated = query.data !== undefined && query.data.shared === 0;
  const shown = useMemo(
    () => pairs.map((pair, index) => ({ pair, index })).filter(({ pair }) => !onlyChanged || differs(pair)),
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
          <h1 className="text-base font-semibold">Compare sessions</h1>
          <span className="text-xs">
            <span className="text-fg-muted">A</span> {sessionLink(sessionId, 'session-a')}{' '}
            <span className="text-fg-muted">→ B</span> {sessionLink(otherId, 'session-b')}
          </span>
          {running && <LiveIndicator connection={connection} />}
        </div>
        {unrelated && (
          <p
            role="status"
            className="flex items-start gap-1.5 rounded border border-line bg-subtle px-2 py-1.5 text-sm"
            data-testid="no-shared-calls"
          >
            <Unlink size={14} aria-hidden className="mt-0.5 shrink-0 text-fg-muted" />
            <span>
              <strong className="font-semibold">These sessions share no calls: nothing is paired.</strong>{' '}
              <span className="text-fg-muted">
                No call of one replays a call of the other, or has its tool call id, or its tool and arguments; their{' '}
                {counts.only_in_a} and {counts.only_in_b} calls are listed below as they are.
              </span>
            </span>
          </p>
        )}
        {query.data && (
          <div className="flex flex-wrap items-center gap-3 text-xs">
            <span className="tabular-nums" data-testid="session-compare-counts">
              {query.data.shared} pair{query.data.shared === 1 ? '' : 's'} ·{' '}
              <span className={counts.changed > 0 ? 'font-semibold text-amber-800 dark:text-amber-300' : ''}>
                {counts.changed} changed
              </span>{' '}
              · {counts.same} unchanged
              {counts.pending > 0 && <> · {counts.pending} pending</>}
              {counts.only_in_a > 0 && <> · {counts.only_in_a} only in A</>}
              {counts.only_in_b > 0 && <> · {counts.only_in_b} only in B</>}
            </span>
            <IgnoredToggle
              count={counts.ignored}
              shown={showIgnored}
              onShown={setShowIgnored}
              rules={query.data.ignore_paths.map((rule) => rule.path)}
            />
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
              Each call of session A beside its pair in session B (its replay, the same tool call id, or the same tool
              and arguments), in A's order; calls without a pair stand alone.
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
                  A
                </th>
                <th scope="col" className={th}>
                  B
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
                const isChanged = differs(pair);
                return (
                  <tr
                    key={`${pair.original?.id ?? '-'}:${pair.replay?.id ?? '-'}`}
                    className={`border-t border-line align-top ${isChanged ? 'bg-amber-50/60 dark:bg-amber-950/20' : ''}`}
                    data-testid="session-pair"
                    data-changed={isChanged}
                    data-verdict={pair.verdict}
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
                      <Side call={pair.original} missing="not in A" />
                    </td>
                    <td className="px-2 py-1.5">
                      <Side call={pair.replay} missing={pair.verdict === 'pending' ? 'not replayed yet' : 'not in B'} />
                    </td>
                    <td className="px-2 py-1.5">
                      <PairChanges pair={pair} showIgnored={showIgnored} />
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
