'use client';

import { ZoomOut } from 'lucide-react';
import Link from 'next/link';
import {
  type CSSProperties,
  type PointerEvent as ReactPointerEvent,
  useEffect,
  useMemo,
  useRef,
  useState,
} from 'react';
import type { CallStatus } from '@/lib/executor/types';
import { formatDuration } from '@/lib/ui/format';
import { escapeInvisible } from '@/lib/ui/invisible-characters';
import { isTypingTarget } from '../shortcuts-dialog';
import {
  type BarSegment,
  collapseByDefault,
  createTimeScale,
  findIdleGaps,
  idleGapThreshold,
  scaleTicks,
  type TimelineLayout,
  type TimeScale,
  timeToX,
  xToTime,
  zoomOut,
} from './timeline-layout';

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

const pct = (fraction: number) => `${fraction * 100}%`;
/** Left of a point of the plot in the whole box: the plot starts after the 2.5rem lane labels and keeps 0.5rem on the right. */
const plotLeft = (fraction: number) => `calc(2.5rem + (100% - 3rem) * ${fraction})`;

/** A pointer moved less than this between press and release clicked (opens the bar under it); more drags a zoom. */
const DRAG_PX = 4;
/** The narrowest range a drag zooms to. */
const MIN_ZOOM_MS = 1;

/** Zig-zag lines drawn down a collapsed gap. */
const BREAK_STYLE: CSSProperties = {
  backgroundImage:
    "url(\"data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='8' height='8'%3E%3Cpolyline points='4,0 1,2 7,6 4,8' fill='none' stroke='%23a1a1aa' stroke-width='1.2'/%3E%3C/svg%3E\")",
  backgroundRepeat: 'repeat-y',
  backgroundPosition: 'center top',
};

function Segment({
  segment,
  left,
  width,
  status,
}: {
  segment: BarSegment;
  /** In shares of the bar. */
  left: number;
  width: number;
  status: CallStatus;
}) {
  const style: CSSProperties = { left: pct(left), width: pct(Math.max(0, width)) };
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

const overlaps = (item: { start: number; end: number }, scale: TimeScale) =>
  item.end >= scale.from && item.start <= scale.to;

/**
 * The session on one time axis: a lane per concurrently running call, a bracket per batch above
 * (and a faint band behind its calls), each bar a link to its trace. Hovering or focusing a bar
 * tells `onActive` (the view shows the call's details); bars of a finding are outlined.
 * Dragging across it zooms into the range dragged over (bars outside are left out, bars across its
 * edges clipped); a double-click, "Reset zoom" or `0` shows the whole session again, `-` zooms out.
 * Idle gaps (no call running or waiting) can be collapsed into narrow breaks; they are by default
 * when one takes more than 40% of the session.
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
  const [zoom, setZoom] = useState<{ from: number; to: number } | null>(null);
  const [collapsePref, setCollapsePref] = useState<boolean | null>(null);
  const { span } = layout;
  const gaps = useMemo(() => findIdleGaps(layout.bars, idleGapThreshold(span)), [layout.bars, span]);
  const collapsed = gaps.length > 0 && (collapsePref ?? collapseByDefault(gaps, span));
  const from = zoom ? Math.max(0, Math.min(zoom.from, span)) : 0;
  const to = zoom ? Math.min(span, zoom.to) : span;
  const zoomed = zoom !== null && to > from;
  const scale = useMemo(
    () => createTimeScale(zoomed ? { from, to } : { from: 0, to: span }, collapsed ? gaps : []),
    [zoomed, from, to, span, collapsed, gaps],
  );
  const ticks = scaleTicks(scale);
  const breaks = scale.pieces.filter((piece) => piece.kind === 'break');
  const x = (time: number) => timeToX(scale, time);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.metaKey || event.ctrlKey || event.altKey || isTypingTarget(event.target)) return;
      if (event.key === '-') {
        event.preventDefault();
        setZoom((now) => now && zoomOut(now, span));
      } else if (event.key === '0') {
        event.preventDefault();
        setZoom(null);
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [span]);

  // The drag: where it started (client x), whether it has moved far enough to be one; the box drawn meanwhile.
  const axis = useRef<HTMLDivElement>(null);
  const drag = useRef<{ pointerId: number; startX: number; dragging: boolean } | null>(null);
  const dragged = useRef(false);
  const [selection, setSelection] = useState<{ a: number; b: number } | null>(null);
  const fractionAt = (clientX: number) => {
    const rect = axis.current?.getBoundingClientRect();
    if (!rect || rect.width <= 0) return 0;
    return Math.min(1, Math.max(0, (clientX - rect.left) / rect.width));
  };
  const onPointerDown = (event: ReactPointerEvent<HTMLDivElement>) => {
    dragged.current = false;
    if (event.button !== 0 || (event.target as Element).closest('button, input, label')) return;
    drag.current = { pointerId: event.pointerId, startX: event.clientX, dragging: false };
  };
  const onPointerMove = (event: ReactPointerEvent<HTMLDivElement>) => {
    const current = drag.current;
    if (!current || current.pointerId !== event.pointerId) return;
    if (!current.dragging) {
      if (Math.abs(event.clientX - current.startX) < DRAG_PX) return;
      current.dragging = true;
      // Captured from here on: the release lands on the timeline, not on the bar it started on.
      event.currentTarget.setPointerCapture(event.pointerId);
    }
    setSelection({ a: fractionAt(current.startX), b: fractionAt(event.clientX) });
  };
  const onPointerUp = (event: ReactPointerEvent<HTMLDivElement>) => {
    const current = drag.current;
    drag.current = null;
    if (!current?.dragging) return;
    dragged.current = true;
    setSelection(null);
    const a = xToTime(scale, fractionAt(current.startX));
    const b = xToTime(scale, fractionAt(event.clientX));
    if (Math.abs(b - a) >= MIN_ZOOM_MS) setZoom({ from: Math.min(a, b), to: Math.max(a, b) });
  };
  const onPointerCancel = () => {
    drag.current = null;
    setSelection(null);
  };

  const visibleBars = layout.bars.filter((bar) => overlaps(bar, scale));
  const visibleBatches = layout.batches.filter((batch) => overlaps(batch, scale));
  const height = layout.lanes * LANE_PX;
  const lanes = Array.from({ length: layout.lanes }, (_, lane) => lane);
  return (
    <div
      className="rounded border border-line p-2"
      data-testid="session-timeline"
      data-lanes={layout.lanes}
      data-zoomed={zoomed || undefined}
      data-collapsed={collapsed || undefined}
    >
      <div className="mb-1 flex min-h-5 flex-wrap items-center justify-between gap-x-3 gap-y-1 text-[11px] text-fg-muted">
        {zoomed ? (
          <span className="flex flex-wrap items-center gap-2">
            <span className="tabular-nums" data-testid="timeline-range">
              Showing {formatDuration(from)} → {formatDuration(to)} ({formatDuration(to - from)} of{' '}
              {formatDuration(span)})
            </span>
            <button
              type="button"
              onClick={() => setZoom(null)}
              className="inline-flex items-center gap-1 rounded border border-line px-1.5 py-0.5 text-fg hover:bg-muted"
              data-testid="timeline-reset-zoom"
            >
              <ZoomOut size={12} aria-hidden /> Reset zoom
            </button>
          </span>
        ) : (
          <span>
            Drag across the timeline to zoom, double-click to reset
            <span data-keyboard-hint>
              {' '}
              · <kbd className="rounded border border-line px-1 font-mono">-</kbd> zoom out,{' '}
              <kbd className="rounded border border-line px-1 font-mono">0</kbd> whole session
            </span>
          </span>
        )}
        {gaps.length > 0 && (
          <label
            className="inline-flex items-center gap-1"
            title="Draw each stretch with no call running or waiting as a narrow break"
          >
            <input
              type="checkbox"
              checked={collapsed}
              onChange={(event) => setCollapsePref(event.target.checked)}
              data-testid="timeline-collapse-gaps"
            />
            Collapse idle gaps ({gaps.length})
          </label>
        )}
      </div>
      {/* The drag surface: axis, batch brackets and lanes share one horizontal extent. */}
      {/* biome-ignore lint/a11y/noStaticElementInteractions: pointer-only zoom; the keyboard has - and 0, the bars stay links */}
      <div
        className="relative touch-pan-y select-none"
        data-testid="timeline-plot"
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onPointerCancel={onPointerCancel}
        onClickCapture={(event) => {
          // The click that ends a drag opens nothing.
          if (!dragged.current) return;
          dragged.current = false;
          event.preventDefault();
          event.stopPropagation();
        }}
        onDoubleClick={() => setZoom(null)}
      >
        <div
          ref={axis}
          className="relative ml-10 mr-2 h-4 cursor-crosshair text-[10px] tabular-nums text-fg-muted"
          data-testid="timeline-axis"
          aria-hidden
        >
          {ticks.map((tick) => (
            <span key={tick.time} className="absolute -translate-x-1/2 whitespace-nowrap" style={{ left: pct(tick.x) }}>
              {formatDuration(tick.time)}
            </span>
          ))}
          {breaks.map((piece) => (
            <span
              key={piece.start}
              className="absolute z-10 -translate-x-1/2 whitespace-nowrap bg-bg px-0.5"
              style={{ left: pct((piece.x0 + piece.x1) / 2) }}
            >
              ⋯ {formatDuration(piece.end - piece.start)} idle
            </span>
          ))}
        </div>
        {/* One bracket per batch: the calls of one request. The batch header rows of the calls table carry the same labels. */}
        <div className="relative ml-10 mr-2" style={{ height: BATCH_ROW_PX }} data-testid="timeline-batches">
          {visibleBatches.map((batch) => {
            const left = x(batch.start);
            const width = x(batch.end) - left;
            return (
              <span
                key={batch.id}
                data-testid="timeline-batch"
                data-batch-id={batch.id}
                title={`Batch ${batch.number}: ${batch.callIds.length} call${batch.callIds.length === 1 ? '' : 's'} in one request`}
                className="absolute bottom-0 h-3 min-w-[6px] rounded-t border-x-2 border-t-2 border-sky-500/70 text-[9px] leading-none text-sky-700 dark:border-sky-400/70 dark:text-sky-300"
                style={{ left: pct(left), width: pct(width) }}
              >
                {/* Labels of narrow one-call batches would pile up; their header rows in the table are numbered too. */}
                {(batch.callIds.length > 1 || width > 0.04) && (
                  <span className="absolute -top-3 left-0.5 whitespace-nowrap">B{batch.number}</span>
                )}
              </span>
            );
          })}
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
                key={tick.time}
                aria-hidden
                className="absolute inset-y-0 border-l border-line/70"
                style={{ left: pct(tick.x) }}
              />
            ))}
            {breaks.map((piece) => (
              <span
                key={piece.start}
                data-testid="timeline-break"
                data-idle-ms={Math.round(piece.end - piece.start)}
                title={`${formatDuration(piece.end - piece.start)} with no call running or waiting (collapsed)`}
                className="absolute inset-y-0 border-x border-dashed border-line bg-subtle"
                style={{ left: pct(piece.x0), width: pct(piece.x1 - piece.x0), ...BREAK_STYLE }}
              />
            ))}
            {visibleBatches
              .filter((batch) => batch.callIds.length > 1)
              .map((batch) => (
                <span
                  key={batch.id}
                  aria-hidden
                  className="absolute inset-y-0 border-x border-dashed border-sky-500/40 bg-sky-500/5"
                  style={{ left: pct(x(batch.start)), width: pct(x(batch.end) - x(batch.start)) }}
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
            {visibleBars.map((bar) => {
              const { call } = bar;
              const isFlagged = flagged.has(call.id);
              const lit = highlighted.has(call.id) || activeId === call.id;
              const left = x(bar.start);
              const width = Math.max(x(bar.end) - left, 1e-9);
              return (
                <Link
                  key={call.id}
                  href={`/traces/${call.id}`}
                  draggable={false}
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
                    left: pct(left),
                    width: pct(width),
                    minWidth: 4,
                  }}
                >
                  {bar.segments
                    .filter((segment) => overlaps(segment, scale))
                    .map((segment) => {
                      const segmentLeft = x(segment.start);
                      return (
                        <Segment
                          key={`${segment.kind}:${segment.start}`}
                          segment={segment}
                          left={(segmentLeft - left) / width}
                          width={(x(segment.end) - segmentLeft) / width}
                          status={call.status}
                        />
                      );
                    })}
                </Link>
              );
            })}
          </div>
        </div>
        {selection && (
          <span
            aria-hidden
            data-testid="timeline-selection"
            className="pointer-events-none absolute inset-y-0 z-20 border-x border-accent bg-accent/15"
            style={{
              left: plotLeft(Math.min(selection.a, selection.b)),
              width: `calc((100% - 3rem) * ${Math.abs(selection.b - selection.a)})`,
            }}
          />
        )}
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
