'use client';

import { formatDuration } from '@/lib/ui/format';
import { escapeInvisible } from '@/lib/ui/invisible-characters';
import { StatusBadge } from '../status';
import { VisibleText } from '../visible-text';
import type { SessionCallJson, TimelineBar } from './timeline-layout';

/**
 * What the pointer (or keyboard focus) is on in the timeline: the call's tool, status, times,
 * approval wait and attempts. Kept in place below the axis (no floating card to chase).
 */
export function CallDetails({
  call,
  bar,
  flagged,
}: {
  call: SessionCallJson | null;
  bar: TimelineBar | null;
  flagged: boolean;
}) {
  if (!call || !bar) {
    return (
      <p
        className="min-h-[2.75rem] rounded border border-dashed border-line px-2 py-1 text-xs text-fg-muted"
        data-testid="call-details"
      >
        Hover or focus a bar (or press j / k) to see the call; click it to open its trace.
      </p>
    );
  }
  const wait = bar.segments.find((segment) => segment.kind === 'approval_wait');
  // The bar of a call still going ends now: its running attempt and its latency count up to there.
  const spanMs = bar.end - bar.start;
  const waitMs = wait ? wait.end - wait.start : 0;
  const waiting = call.status === 'awaiting_approval';
  const running = waiting || call.status === 'running';
  const latencyMs = running ? Math.max(0, spanMs - waitMs) : call.latency_ms;
  return (
    <div
      className="flex min-h-[2.75rem] flex-wrap items-center gap-x-3 gap-y-1 rounded border border-line px-2 py-1 text-xs"
      data-testid="call-details"
      data-trace-id={call.id}
    >
      <span className="font-mono text-fg-muted">#{call.session_seq ?? '?'}</span>
      <span className="font-mono font-medium">
        <VisibleText text={call.tool} />
      </span>
      <StatusBadge status={call.status} />
      <span className="tabular-nums text-fg-muted" data-testid="call-details-range">
        +{formatDuration(bar.start)} → {running ? 'now' : `+${formatDuration(bar.end)}`} ({formatDuration(spanMs)})
      </span>
      {!waiting && (
        <span className="tabular-nums" data-testid="call-details-latency" title="Execution: less the wait for approval">
          latency {formatDuration(latencyMs)}
          {running ? ' so far' : ''}
        </span>
      )}
      {wait && (
        <span className="tabular-nums text-amber-800 dark:text-amber-300" data-testid="call-details-wait">
          {waiting ? 'waiting' : 'waited'} {formatDuration(waitMs)} for approval
          {call.approval?.decision ? ` (${call.approval.decision})` : waiting ? '' : ' (no decision)'}
        </span>
      )}
      {call.attempts.length > 0 && (
        <span className="tabular-nums text-fg-muted" data-testid="call-details-attempts">
          {call.attempts
            .map((attempt) => {
              const ms = attempt.outcome === 'running' ? Math.max(0, spanMs - attempt.started_at) : attempt.duration_ms;
              return `#${attempt.number} ${attempt.outcome} ${formatDuration(ms)}`;
            })
            .join(' · ')}
        </span>
      )}
      {call.error_code && <span className="font-mono text-red-700 dark:text-red-300">{call.error_code}</span>}
      {flagged && <span className="text-fuchsia-700 dark:text-fuchsia-300">in a finding</span>}
      {call.arguments_preview && (
        <span className="max-w-[40ch] truncate font-mono text-fg-muted" title={escapeInvisible(call.arguments_preview)}>
          <VisibleText text={call.arguments_preview} />
        </span>
      )}
    </div>
  );
}
