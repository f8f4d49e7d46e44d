'use client';

import { useQuery } from '@tanstack/react-query';
import { Download, List, RotateCcw } from 'lucide-react';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useEffect, useMemo, useRef, useState } from 'react';
import type { SessionDetailJson } from '@/lib/api/sessions';
import { formatDuration } from '@/lib/ui/format';
import { ComparePicker } from '../compare/compare-picker';
import { SessionReplayButton } from '../replay/session-replay-button';
import { isTypingTarget } from '../shortcuts-dialog';
import { Timestamp } from '../timestamp';
import { LiveIndicator } from '../traces/live-indicator';
import { useTraceEvents } from '../use-trace-events';
import { VisibleText } from '../visible-text';
import { sessionFiguresAt } from './live-figures';
import { CallDetails } from './session-call-details';
import { SessionCalls } from './session-calls';
import { SessionFindings } from './session-findings';
import { SessionTimeline } from './session-timeline';
import { fetchSession } from './sessions-api';
import { layoutTimeline } from './timeline-layout';

const REFETCH_THROTTLE_MS = 300;

function Total({ label, value, tone, testId }: { label: string; value: string; tone?: string; testId?: string }) {
  return (
    <div className="flex flex-col rounded border border-line px-2 py-1" data-testid={testId}>
      <dt className="text-[10px] uppercase tracking-wide text-fg-muted">{label}</dt>
      <dd className={`tabular-nums ${tone ?? ''}`}>{value}</dd>
    </div>
  );
}

/**
 * One session (agent run) on one time axis.
 * 1. The server renders the view's data (`GET /api/v1/sessions/:id`'s JSON); TanStack Query holds it.
 * 2. Events of this session refetch it (throttled); while a call runs, the clock ticks so running
 *    bars and open approval waits grow; polling takes over while the stream is down.
 * 3. j/k move through the calls in session order (the hover card follows), Enter opens the trace.
 */
export function SessionView({ initial, renderedAt }: { initial: SessionDetailJson; renderedAt: number }) {
  const router = useRouter();
  const id = initial.id;
  const [connected, setConnected] = useState(false);
  const [gone, setGone] = useState(false);
  const query = useQuery({
    queryKey: ['session', id, renderedAt],
    queryFn: async () => {
      const next = await fetchSession(id);
      if (next === null) {
        setGone(true);
        return initial;
      }
      return next;
    },
    initialData: initial,
    initialDataUpdatedAt: renderedAt,
    staleTime: Number.POSITIVE_INFINITY,
    refetchInterval: connected ? false : 3000,
  });
  const session = query.data;
  const running = session.running > 0;
  const going = running || session.waiting > 0;

  // The clock of running bars and open waits: set at each refresh, ticking while a call runs or waits.
  const [now, setNow] = useState(renderedAt);
  const updatedAt = query.dataUpdatedAt;
  useEffect(() => {
    setNow(Math.max(updatedAt, Date.now()));
    if (!going) return;
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(timer);
  }, [going, updatedAt]);

  const throttle = useRef<ReturnType<typeof setTimeout> | null>(null);
  const refetch = query.refetch;
  const connection = useTraceEvents(
    () => {
      if (throttle.current) return;
      throttle.current = setTimeout(() => {
        throttle.current = null;
        void refetch();
      }, REFETCH_THROTTLE_MS);
    },
    // The server sends this session's events only.
    { session: id, onReconnect: () => void refetch() },
  );
  useEffect(() => setConnected(connection.state === 'live'), [connection.state]);
  useEffect(
    () => () => {
      if (throttle.current) clearTimeout(throttle.current);
    },
    [],
  );

  const layout = useMemo(() => layoutTimeline(session.calls, now), [session.calls, now]);
  const figures = useMemo(() => sessionFiguresAt(session, now), [session, now]);
  const flagged = useMemo(() => new Set(session.findings.flatMap((f) => f.trace_ids)), [session.findings]);
  const [highlighted, setHighlighted] = useState<ReadonlySet<string>>(new Set());
  const [activeId, setActiveId] = useState<string | null>(null);
  const active = session.calls.find((call) => call.id === activeId) ?? null;
  const activeBar = layout.bars.find((bar) => bar.call.id === activeId) ?? null;

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.metaKey || event.ctrlKey || event.altKey || isTypingTarget(event.target)) return;
      const calls = session.calls;
      if (event.key === 'j' || event.key === 'k') {
        if (calls.length === 0) return;
        event.preventDefault();
        const index = calls.findIndex((call) => call.id === activeId);
        const next = event.key === 'j' ? Math.min(calls.length - 1, index + 1) : Math.max(0, index < 0 ? 0 : index - 1);
        const call = calls[next];
        if (!call) return;
        setActiveId(call.id);
        document
          .querySelector<HTMLElement>(`[data-testid="timeline-bar"][data-trace-id="${CSS.escape(call.id)}"]`)
          ?.focus();
      } else if (event.key === 'Enter') {
        if (event.target instanceof HTMLAnchorElement || event.target instanceof HTMLButtonElement) return;
        if (activeId) router.push(`/traces/${activeId}`);
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [session.calls, activeId, router]);

  const callCount = session.calls.length;
  return (
    <div className="flex flex-col gap-3" data-testid="session-view" data-session-id={id}>
      {gone && (
        <p role="alert" className="text-xs text-amber-800 dark:text-amber-300">
          This session no longer has calls (they were deleted); showing what was last seen.
        </p>
      )}
      <div className="flex flex-wrap items-center justify-between gap-x-3 gap-y-2">
        <div className="flex min-w-0 flex-wrap items-baseline gap-x-3 gap-y-1">
          <h1 className="truncate text-base font-semibold">
            <span className="font-normal text-fg-muted">Session </span>
            <span className="font-mono" data-testid="session-id">
              <VisibleText text={id} />
            </span>
          </h1>
          {session.imported && (
            <span className="rounded border border-line px-1 text-[10px] text-fg-muted" data-testid="session-imported">
              imported
            </span>
          )}
          <span className="text-xs text-fg-muted">
            <Timestamp ms={Date.parse(session.first_call_at ?? '')} full /> →{' '}
            {session.ended_at ? <Timestamp ms={Date.parse(session.ended_at)} /> : 'now'}
          </span>
          {session.replay_of_session && (
            <span className="inline-flex min-w-0 items-center gap-1 text-xs" data-testid="session-replay-of">
              <RotateCcw size={12} aria-hidden className="text-fg-muted" />
              Replay of session
              <Link
                href={`/sessions/${encodeURIComponent(session.replay_of_session)}`}
                className="truncate font-mono text-accent hover:underline"
                title={session.replay_of_session}
                data-testid="session-replay-of-link"
              >
                <VisibleText text={session.replay_of_session} />
              </Link>
            </span>
          )}
        </div>
        <div className="flex flex-wrap items-center gap-2">
          <Link
            href={`/?session=${encodeURIComponent(id)}`}
            className="inline-flex items-center gap-1 rounded border border-line px-1.5 py-0.5 text-xs text-fg-muted hover:bg-muted hover:text-fg"
            title="The session's calls in the traces list"
          >
            <List size={12} aria-hidden /> Calls list
          </Link>
          <a
            href={`/api/v1/sessions/${encodeURIComponent(id)}/export`}
            download
            className="inline-flex items-center gap-1 rounded border border-line px-1.5 py-0.5 text-xs text-fg-muted hover:bg-muted hover:text-fg"
            title="Download the whole session as one JSON file (redacted), to import into another Toolscope"
            data-testid="export-session"
          >
            <Download size={12} aria-hidden /> Export
          </a>
          {!session.imported && <SessionReplayButton sessionId={id} />}
          <ComparePicker subject={{ kind: 'session', id, replayOf: session.replay_of_session }} />
          <LiveIndicator connection={connection} />
        </div>
      </div>

      <dl className="grid grid-cols-3 gap-1.5 text-xs sm:grid-cols-5 lg:grid-cols-10" data-testid="session-totals">
        <Total label="Calls" value={String(callCount)} testId="total-calls" />
        <Total
          label="Failed"
          value={String(session.failed)}
          tone={session.failed > 0 ? 'font-medium text-red-700 dark:text-red-300' : 'text-fg-muted'}
          testId="total-failed"
        />
        <Total
          label="Denied"
          value={String(session.denied)}
          tone={session.denied > 0 ? 'font-medium text-orange-700 dark:text-orange-300' : 'text-fg-muted'}
          testId="total-denied"
        />
        <Total
          label="Running"
          value={String(session.running)}
          tone={running ? 'text-blue-700 dark:text-blue-300' : 'text-fg-muted'}
          testId="total-running"
        />
        <Total
          label="Waiting"
          value={String(session.waiting)}
          tone={session.waiting > 0 ? 'text-amber-700 dark:text-amber-300' : 'text-fg-muted'}
          testId="total-waiting"
        />
        <Total label="Wall time" value={formatDuration(figures.wallMs)} testId="total-wall" />
        <Total label="Executing" value={formatDuration(figures.executingMs)} testId="total-executing" />
        <Total label="Retrying" value={formatDuration(figures.retryingMs)} testId="total-retrying" />
        <Total label="Approval wait" value={formatDuration(figures.approvalWaitMs)} testId="total-approval-wait" />
        <Total label="Lanes" value={String(layout.lanes)} testId="total-lanes" />
      </dl>

      {session.calls_truncated && (
        <p className="text-xs text-amber-800 dark:text-amber-300" data-testid="calls-truncated">
          This session has more calls than the view draws: the first {callCount} are shown.{' '}
          <Link href={`/?session=${encodeURIComponent(id)}`} className="text-accent hover:underline">
            All its calls
          </Link>
        </p>
      )}

      <SessionFindings findings={session.findings} calls={session.calls} onHighlight={setHighlighted} />

      {callCount > 0 && (
        <SessionTimeline
          layout={layout}
          flagged={flagged}
          highlighted={highlighted}
          activeId={activeId}
          onActive={setActiveId}
        />
      )}
      <CallDetails call={active} bar={activeBar} flagged={active ? flagged.has(active.id) : false} />

      <SessionCalls
        calls={session.calls}
        origin={layout.origin}
        now={now}
        batches={layout.batches}
        messages={session.assistant_messages}
        flagged={flagged}
        activeId={activeId}
        onActive={setActiveId}
      />
      <p className="text-xs text-fg-muted">
        <kbd className="rounded border border-line px-1 font-mono">j</kbd>/
        <kbd className="rounded border border-line px-1 font-mono">k</kbd> next / previous call,{' '}
        <kbd className="rounded border border-line px-1 font-mono">Enter</kbd> open its trace · click a bar to open it
      </p>
    </div>
  );
}
