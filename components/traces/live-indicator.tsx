'use client';

import { Pause, Play } from 'lucide-react';
import { useEffect, useState, useSyncExternalStore } from 'react';
import { type LiveConnection, retryLiveConnection } from '../use-trace-events';

// How many live indicators the page shows now: the banner says the stream is down where none does.
let shown = 0;
const shownListeners = new Set<() => void>();
const setShown = (change: number) => {
  shown += change;
  for (const listener of shownListeners) listener();
};
const subscribeShown = (listener: () => void) => {
  shownListeners.add(listener);
  return () => shownListeners.delete(listener);
};

/** Whether a live indicator is on the page (it says "Disconnected" and offers "Retry now" itself). */
export function useLiveIndicatorShown(): boolean {
  return useSyncExternalStore(
    subscribeShown,
    () => shown > 0,
    () => false,
  );
}

/** "Retry now": the event stream's next reconnect try at once, in whichever tab holds the stream. */
export function RetryNowButton() {
  return (
    <button
      type="button"
      onClick={retryLiveConnection}
      data-testid="live-retry"
      className="rounded border border-line px-1.5 py-0.5 text-xs font-medium hover:bg-muted"
    >
      Retry now
    </button>
  );
}

/** Seconds until `at`, re-rendered every second while `at` is set. */
export function useCountdown(at: number | null): number | null {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (at === null) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [at]);
  return at === null ? null : Math.max(0, Math.ceil((at - now) / 1_000));
}

/**
 * Says whether the view is following new calls: a pulsing dot and "Live", "Paused — N new",
 * "Connecting…" or "Disconnected — reconnecting in N s" with "Retry now". The optional button
 * pauses and resumes (also the `p` key on the list).
 */
export function LiveIndicator({
  connection,
  paused = false,
  pending = 0,
  disabledReason,
  onToggle,
}: {
  connection: LiveConnection;
  paused?: boolean;
  pending?: number;
  disabledReason?: string;
  onToggle?: () => void;
}) {
  const seconds = useCountdown(paused ? null : connection.retryAt);
  useEffect(() => {
    if (disabledReason) return;
    setShown(1);
    return () => setShown(-1);
  }, [disabledReason]);
  if (disabledReason) {
    return (
      <span className="text-xs text-fg-muted" data-testid="live-indicator" data-state="off">
        {disabledReason}
      </span>
    );
  }
  const state = paused ? 'paused' : connection.state;
  const dot =
    state === 'live'
      ? 'bg-emerald-500 animate-pulse'
      : state === 'paused'
        ? 'bg-amber-500'
        : state === 'disconnected'
          ? 'bg-red-500'
          : 'bg-zinc-400';
  const text =
    state === 'live'
      ? 'Live'
      : state === 'paused'
        ? `Paused${pending > 0 ? ` — ${pending} new` : ''}`
        : state === 'connecting'
          ? 'Connecting…'
          : `Disconnected — reconnecting${seconds ? ` in ${seconds} s` : '…'}`;
  return (
    <div className="flex items-center gap-2" data-testid="live-indicator" data-state={state}>
      <span
        className={`flex items-center gap-1.5 text-xs ${state === 'disconnected' ? 'font-medium text-red-700 dark:text-red-300' : ''}`}
        role="status"
        title={
          state === 'disconnected'
            ? 'The event stream to the server dropped; updates resume when it is back.'
            : undefined
        }
      >
        <span className={`inline-block size-2 rounded-full ${dot}`} aria-hidden />
        {text}
      </span>
      {state === 'disconnected' && <RetryNowButton />}
      {onToggle && (
        <button
          type="button"
          onClick={onToggle}
          aria-pressed={paused}
          data-testid="live-toggle"
          title={paused ? 'Resume live updates (p)' : 'Pause live updates (p)'}
          className="inline-flex items-center gap-1 rounded border border-line px-1.5 py-0.5 text-xs hover:bg-muted"
        >
          {paused ? <Play size={12} aria-hidden /> : <Pause size={12} aria-hidden />}
          {paused ? 'Resume' : 'Pause'}
        </button>
      )}
    </div>
  );
}
