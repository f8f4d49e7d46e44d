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
      <span className="tabular-nums text-fg-muted">
        +{formatDuration(bar.start)} → +{formatDuration(bar.end)} ({formatDuration(bar.end - bar.start)})
      </span>
      {wait && (
        <span className="tabular-nums text-amber-800 dark:text-amber-300">
          waited {formatDuration(wait.end - wait.start)} for approval
          {call.approval?.decision ? ` (${call.approval.decision})` : ' (still waiting)'}
        </span>
      )}
      {call.attempts.length > 0 && (
        <span className="tabular-nums text-fg-muted">
          {call.attempts
            .map((attempt) => `#${attempt.number} ${attempt.outcome} ${formatDuration(attempt.duration_ms)}`)
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
