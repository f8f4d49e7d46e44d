'use client';

import { Pause, Play } from 'lucide-react';
import type { LiveConnection } from '../use-trace-events';

/**
 * Says whether the list is following new calls: a pulsing dot and "Live", "Paused — N new" or
 * "Reconnecting"; the button pauses and resumes (also the `p` key).
 */
export function LiveIndicator({
  connection,
  paused,
  pending,
  disabledReason,
  onToggle,
}: {
  connection: LiveConnection;
  paused: boolean;
  pending: number;
  disabledReason?: string;
  onToggle: () => void;
}) {
  if (disabledReason) {
    return (
      <span className="text-xs text-fg-muted" data-testid="live-indicator" data-state="off">
        {disabledReason}
      </span>
    );
  }
  const state = paused ? 'paused' : connection;
  const dot = state === 'live' ? 'bg-emerald-500 animate-pulse' : state === 'paused' ? 'bg-amber-500' : 'bg-zinc-400';
  const text =
    state === 'live'
      ? 'Live'
      : state === 'paused'
        ? `Paused${pending > 0 ? ` — ${pending} new` : ''}`
        : state === 'connecting'
          ? 'Connecting…'
          : 'Reconnecting (polling)';
  return (
    <div className="flex items-center gap-2" data-testid="live-indicator" data-state={state}>
      <span className="flex items-center gap-1.5 text-xs" aria-live="polite">
        <span className={`inline-block size-2 rounded-full ${dot}`} aria-hidden />
        {text}
      </span>
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
    </div>
  );
}
