'use client';

import Link from 'next/link';
import type { CSSProperties } from 'react';
import type { CallStatus } from '@/lib/executor/types';
import { axisTicks, formatDuration } from '@/lib/ui/format';
import { escapeInvisible } from '@/lib/ui/invisible-characters';
import type { BarSegment, TimelineBar, TimelineLayout } from './timeline-layout';

const LANE_PX = 22;
const BATCH_ROW_PX = 18;

/** Fill of a bar's execution by the call's status; the status word is in the hover card and the label. */
export const STATUS_FILL: Record<CallStatus, string> = {
  running: 'bg-blue-500 dark:bg-blue-400',
  awaiting_approval: 'bg-amber-500 dark:bg-amber-400',
  succeeded: 'bg-emerald-500 dark:bg-emerald-500',
  failed: 'bg-red-500 dark:bg-red-500',
  denied: 'bg-orange-500 dark:bg-orange-400',
  cancelled: 'bg-zinc-500 dark:bg-zinc-400',
  interrupted: 'bg-zinc-400 dark:bg-zinc-500',
};

/** The faint body of a bar: the call's whole span (parse, validate, permission, normalize). */
const STATUS_TINT: Record<CallStatus, string> = {
  running: 'bg-blue-100 border-blue-400 dark:bg-blue-950 dark:border-blue-700',
  awaiting_approval: 'bg-amber-50 border-amber-400 dark:bg-amber-950/60 dark:border-amber-700',
  succeeded: 'bg-emerald-50 border-emerald-400 dark:bg-emerald-950/60 dark:border-emerald-700',
  failed: 'bg-red-50 border-red-400 dark:bg-red-950/60 dark:border-red-700',
  denied: 'bg-orange-50 border-orange-400 dark:bg-orange-950/60 dark:border-orange-700',
  cancelled: 'bg-zinc-100 border-zinc-400 dark:bg-zinc-800 dark:border-zinc-600',
  interrupted: 'bg-zinc-100 border-zinc-300 dark:bg-zinc-800 dark:border-zinc-700',
};

/** Approval waits are hatched amber; retries cross-hatched in the status colour; backoff a dashed line. */
export const WAIT_STYLE: CSSProperties = {
  backgroundImage: 'repeating-linear-gradient(135deg, rgb(245 158 11 / 0.75) 0 2px, transparent 2px 5px)',
};
export const RETRY_STYLE: CSSProperties = {
  backgroundImage:
    'repeating-linear-gradient(90deg, rgb(255 255 255 / 0.45) 0 1px, transparent 1px 4px), repeating-linear-gradient(0deg, rgb(255 255 255 / 0.35) 0 1px, transparent 1px 4px)',
};

const pct = (ms: number, span: number) => `${(ms / span) * 100}%`;

function Segment({ segment, bar, status }: { segment: BarSegment; bar: TimelineBar; status: CallStatus }) {
  const length = Math.max(1, bar.end - bar.start);
  const style: CSSProperties = {
    left: pct(segment.start - bar.start, length),
    width: pct(Math.max(0, segment.end - segment.start), length),
  };
  if (segment.kind === 'approval_wait') {
    return (
      <span data-segment="approval_wait" className="absolute inset-y-0 min-w-px" style={{ ...style, ...WAIT_STYLE }} />
    );
  }
  if (segment.kind === 'backoff') {
    return (
      <span
        data-segment="backoff"
        className="absolute top-1/2 h-0 -translate-y-1/2 border-t-2 border-dashed border-violet-500 dark:border-violet-400"
        style={style}
      />
    );
  }
  const fill = segment.outcome === 'ok' || segment.outcome === 'running' ? STATUS_FILL[status] : STATUS_FILL.failed;
  return (
    <span
      data-segment={segment.kind}
      className={`absolute inset-y-[3px] min-w-[2px] rounded-sm ${segment.kind === 'retry' ? 'bg-violet-500 dark:bg-violet-400' : fill}`}
      style={segment.kind === 'retry' ? { ...style, ...RETRY_STYLE } : style}
    />
  );
}

/**
 * The session on one time axis: a lane per concurrently running call, a bracket per batch above
 * (and a faint band behind its calls), each bar a link to its trace. Hovering or focusing a bar
 * tells `onActive` (the view shows the call's details); bars of a finding are outlined.
 */
export function SessionTimeline({
  layout,
  flagged,
  highlighted,
  activeId,
  onActive,
}: {
  layout: TimelineLayout;
  /** Calls in a finding. */
  flagged: ReadonlySet<string>;
  /** Calls of the finding the pointer is on. */
  highlighted: ReadonlySet<string>;
  activeId: string | null;
  onActive: (id: string | null) => void;
}) {
  const ticks = axisTicks(layout.span).filter((tick) => tick <= layout.span * 1.0001);
  const height = layout.lanes * LANE_PX;
  const lanes = Array.from({ length: layout.lanes }, (_, lane) => lane);
  return (
    <div className="rounded border border-line p-2" data-testid="session-timeline" data-lanes={layout.lanes}>
      <div className="relative ml-10 mr-2 h-4 text-[10px] tabular-nums text-fg-muted" aria-hidden>
        {ticks.map((tick) => (
          <span
            key={tick}
            className="absolute -translate-x-1/2 whitespace-nowrap"
            style={{ left: pct(tick, layout.span) }}
          >
            {formatDuration(tick)}
          </span>
        ))}
      </div>
      {/* One bracket per batch: the calls of one request. The batch header rows of the calls table carry the same labels. */}
      <div className="relative ml-10 mr-2" style={{ height: BATCH_ROW_PX }} data-testid="timeline-batches">
        {layout.batches.map((batch) => (
          <span
            key={batch.id}
            data-testid="timeline-batch"
            data-batch-id={batch.id}
            title={`Batch ${batch.number}: ${batch.callIds.length} call${batch.callIds.length === 1 ? '' : 's'} in one request`}
            className="absolute bottom-0 h-3 min-w-[6px] rounded-t border-x-2 border-t-2 border-sky-500/70 text-[9px] leading-none text-sky-700 dark:border-sky-400/70 dark:text-sky-300"
            style={{ left: pct(batch.start, layout.span), width: pct(batch.end - batch.start, layout.span) }}
          >
            {/* Labels of narrow one-call batches would pile up; their header rows in the table are numbered too. */}
            {(batch.callIds.length > 1 || batch.end - batch.start > layout.span * 0.04) && (
              <span className="absolute -top-3 left-0.5 whitespace-nowrap">B{batch.number}</span>
            )}
          </span>
        ))}
      </div>
      <div className="flex">
        <div className="w-10 shrink-0 text-[10px] text-fg-muted" aria-hidden>
          {lanes.map((lane) => (
            <div key={lane} className="flex items-center" style={{ height: LANE_PX }}>
              L{lane + 1}
            </div>
          ))}
        </div>
        <div className="relative mr-2 grow" style={{ height }}>
          {ticks.map((tick) => (
            <span
              key={tick}
              aria-hidden
              className="absolute inset-y-0 border-l border-line/70"
              style={{ left: pct(tick, layout.span) }}
            />
          ))}
          {layout.batches
            .filter((batch) => batch.callIds.length > 1)
            .map((batch) => (
              <span
                key={batch.id}
                aria-hidden
                className="absolute inset-y-0 border-x border-dashed border-sky-500/40 bg-sky-500/5"
                style={{ left: pct(batch.start, layout.span), width: pct(batch.end - batch.start, layout.span) }}
              />
            ))}
          {lanes.slice(1).map((lane) => (
            <span
              key={lane}
              aria-hidden
              className="absolute inset-x-0 border-t border-line/50"
              style={{ top: lane * LANE_PX }}
            />
          ))}
          {layout.bars.map((bar) => {
            const { call } = bar;
            const isFlagged = flagged.has(call.id);
            const lit = highlighted.has(call.id) || activeId === call.id;
            return (
              <Link
                key={call.id}
                href={`/traces/${call.id}`}
                data-testid="timeline-bar"
                data-trace-id={call.id}
                data-lane={bar.lane}
                data-status={call.status}
                data-flagged={isFlagged || undefined}
                aria-label={`#${call.session_seq ?? '?'} ${escapeInvisible(call.tool)}, ${call.status.replace('_', ' ')}, ${formatDuration(bar.end - bar.start)}${isFlagged ? ', in a finding' : ''}`}
                onPointerEnter={() => onActive(call.id)}
                onFocus={() => onActive(call.id)}
                className={`absolute overflow-hidden rounded-sm border-l-2 focus:outline-none ${STATUS_TINT[call.status]} ${
                  isFlagged ? 'ring-2 ring-fuchsia-500 ring-offset-1 ring-offset-bg dark:ring-fuchsia-400' : ''
                } ${lit ? 'z-10 shadow-[0_0_0_2px_var(--accent)]' : ''} ${call.status === 'running' ? 'animate-pulse' : ''}`}
                style={{
                  top: bar.lane * LANE_PX + 2,
                  height: LANE_PX - 4,
                  left: pct(bar.start, layout.span),
                  width: pct(bar.end - bar.start, layout.span),
                  minWidth: 4,
                }}
              >
                {bar.segments.map((segment) => (
                  <Segment key={`${segment.kind}:${segment.start}`} segment={segment} bar={bar} status={call.status} />
                ))}
              </Link>
            );
          })}
        </div>
      </div>
      <Legend />
    </div>
  );
}

function Legend() {
  const swatch = 'inline-block h-2.5 w-5 rounded-sm align-middle';
  return (
    <div
      className="mt-2 flex flex-wrap items-center gap-x-3 gap-y-1 text-[10px] text-fg-muted"
      data-testid="timeline-legend"
    >
      <span>
        <span className={`${swatch} ${STATUS_FILL.succeeded}`} /> executing (colour = status)
      </span>
      <span>
        <span className={`${swatch} bg-violet-500`} style={RETRY_STYLE} /> retry / fallback attempt
      </span>
      <span>
        <span className="inline-block w-5 border-t-2 border-dashed border-violet-500 align-middle" /> backoff
      </span>
      <span>
        <span className={`${swatch} border border-amber-500`} style={WAIT_STYLE} /> waiting for approval
      </span>
      <span>
        <span className={`${swatch} border-l-2 border-zinc-400 bg-zinc-100 dark:bg-zinc-800`} /> other stages
      </span>
      <span>
        <span className={`${swatch} ring-2 ring-fuchsia-500`} /> in a finding
      </span>
      <span>
        <span className={`${swatch} border-x-2 border-t-2 border-sky-500`} /> batch (one request)
      </span>
    </div>
  );
}
