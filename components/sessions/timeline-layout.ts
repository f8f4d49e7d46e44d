import type { SessionDetailJson } from '@/lib/api/sessions';
import { axisTicks } from '@/lib/ui/format';

export type SessionCallJson = SessionDetailJson['calls'][number];

/** A part of a call's bar, in ms from the session's start. */
export interface BarSegment {
  kind: 'approval_wait' | 'execution' | 'retry' | 'backoff';
  start: number;
  end: number;
  /** The attempt it draws (1-based); absent for waits. */
  attempt?: number;
  outcome?: string;
}

export interface TimelineBar {
  call: SessionCallJson;
  lane: number;
  /** Ms from the session's start. */
  start: number;
  end: number;
  segments: BarSegment[];
}

export interface TimelineBatch {
  id: string;
  /** 1-based, in the order the batches began. */
  number: number;
  start: number;
  end: number;
  callIds: string[];
}

export interface TimelineLayout {
  /** Epoch ms the axis starts at (the first call's start). */
  origin: number;
  /** Ms the axis spans (at least 1). */
  span: number;
  lanes: number;
  bars: TimelineBar[];
  batches: TimelineBatch[];
}

const epoch = (iso: string | null) => (iso === null ? Number.NaN : Date.parse(iso));

/**
 * Places a session's calls on one time axis:
 * 1. each call spans its start to its finish (to `now` while it runs);
 * 2. lanes are given greedily: calls in order of start go to the first lane free by then, so
 *    calls that overlapped (ran concurrently) sit in separate lanes and a sequential run stays in one;
 * 3. a bar is cut into its approval wait, its first attempt (execution), later attempts
 *    (retries, fallbacks) and the backoff gaps between attempts;
 * 4. calls sharing a batch id form a batch, spanning its calls' extent.
 */
export function layoutTimeline(calls: readonly SessionCallJson[], now: number): TimelineLayout {
  const timed = calls.map((call) => {
    const start = epoch(call.started_at);
    const finished = epoch(call.finished_at);
    return { call, start, end: Math.max(start, Number.isNaN(finished) ? now : finished) };
  });
  const origin = timed.reduce((min, t) => Math.min(min, t.start), Number.POSITIVE_INFINITY);
  const last = timed.reduce((max, t) => Math.max(max, t.end), Number.NEGATIVE_INFINITY);
  if (timed.length === 0) return { origin: now, span: 1, lanes: 0, bars: [], batches: [] };

  const laneEnds: number[] = [];
  const bars: TimelineBar[] = [...timed]
    .sort((a, b) => a.start - b.start || (a.call.session_seq ?? 0) - (b.call.session_seq ?? 0))
    .map(({ call, start, end }) => {
      let lane = laneEnds.findIndex((laneEnd) => laneEnd <= start);
      if (lane === -1) lane = laneEnds.push(end) - 1;
      else laneEnds[lane] = end;
      return {
        call,
        lane,
        start: start - origin,
        end: end - origin,
        segments: segmentsOf(call, start, end, now, origin),
      };
    });

  const byBatch = new Map<string, TimelineBatch>();
  for (const bar of bars) {
    const id = bar.call.batch_id;
    if (id === null) continue;
    const batch = byBatch.get(id);
    if (batch) {
      batch.start = Math.min(batch.start, bar.start);
      batch.end = Math.max(batch.end, bar.end);
      batch.callIds.push(bar.call.id);
    } else {
      byBatch.set(id, { id, number: byBatch.size + 1, start: bar.start, end: bar.end, callIds: [bar.call.id] });
    }
  }
  return { origin, span: Math.max(1, last - origin), lanes: laneEnds.length, bars, batches: [...byBatch.values()] };
}

function segmentsOf(call: SessionCallJson, start: number, end: number, now: number, origin: number): BarSegment[] {
  const segments: BarSegment[] = [];
  if (call.approval) {
    const requested = epoch(call.approval.requested_at);
    const decided = epoch(call.approval.decided_at);
    const waitEnd = Number.isNaN(decided) ? (call.status === 'awaiting_approval' ? now : end) : decided;
    if (!Number.isNaN(requested) && waitEnd > requested) {
      segments.push({ kind: 'approval_wait', start: requested - origin, end: Math.min(waitEnd, end) - origin });
    }
  }
  call.attempts.forEach((attempt, index) => {
    const from = start + attempt.started_at;
    // A running attempt has no duration yet: it lasts until now (the bar's end).
    const to = attempt.outcome === 'running' ? end : from + attempt.duration_ms;
    const previous = call.attempts[index - 1];
    if (previous) {
      const gapFrom = start + previous.started_at + previous.duration_ms;
      if (from > gapFrom) segments.push({ kind: 'backoff', start: gapFrom - origin, end: from - origin });
    }
    segments.push({
      kind: index === 0 ? 'execution' : 'retry',
      start: from - origin,
      end: Math.min(Math.max(to, from), end) - origin,
      attempt: attempt.number,
      outcome: attempt.outcome,
    });
  });
  return segments;
}

/**
 * The calls in runs of one batch each, in session order: the calls table shows a header row per
 * batch (where the batch's assistant message goes). A call without a batch is a run of its own.
 */
export function groupByBatch(
  calls: readonly SessionCallJson[],
): { batchId: string | null; calls: SessionCallJson[] }[] {
  const groups: { batchId: string | null; calls: SessionCallJson[] }[] = [];
  for (const call of calls) {
    const lastGroup = groups.at(-1);
    if (lastGroup && call.batch_id !== null && lastGroup.batchId === call.batch_id) lastGroup.calls.push(call);
    else groups.push({ batchId: call.batch_id, calls: [call] });
  }
  return groups;
}

/** A stretch of the session with no call running or waiting for approval, in ms from its start. */
export interface IdleGap {
  start: number;
  end: number;
}

/** Idle stretches shorter than this are never collapsed: the pause between an agent's requests. */
export const IDLE_GAP_MIN_MS = 1000;
/** Collapse is on by default when the longest idle gap is more than this share of the wall time. */
export const COLLAPSE_BY_DEFAULT_SHARE = 0.4;
/** The width of one collapsed gap's break mark, as a share of the axis. */
export const BREAK_WIDTH = 0.03;

/** The shortest idle stretch collapsed on an axis of `span` ms: a second, or 5% of the span. */
export function idleGapThreshold(span: number): number {
  return Math.max(IDLE_GAP_MIN_MS, span * 0.05);
}

/**
 * The parts of a bar where the call is doing something: the bar without its approval wait. A
 * person taking two minutes to decide is idle time for the run, so it can be collapsed like a gap.
 */
export function busySpans(bar: { start: number; end: number; segments?: readonly BarSegment[] }) {
  const waits = (bar.segments ?? []).filter((segment) => segment.kind === 'approval_wait');
  if (waits.length === 0) return [{ start: bar.start, end: bar.end }];
  const spans: { start: number; end: number }[] = [];
  let from = bar.start;
  for (const wait of [...waits].sort((a, b) => a.start - b.start)) {
    if (wait.start > from) spans.push({ start: from, end: wait.start });
    from = Math.max(from, wait.end);
  }
  if (bar.end > from) spans.push({ start: from, end: bar.end });
  // A call still waiting is only a wait: its start keeps it on the axis.
  return spans.length > 0 ? spans : [{ start: bar.start, end: bar.start }];
}

/**
 * The stretches at least `minMs` long where nothing runs: the bars' busy spans (`busySpans`: a
 * wait for a person is not work) merged, and the holes between them.
 */
export function findIdleGaps(
  bars: readonly { start: number; end: number; segments?: readonly BarSegment[] }[],
  minMs: number,
): IdleGap[] {
  const gaps: IdleGap[] = [];
  let busyUntil = Number.NEGATIVE_INFINITY;
  for (const bar of bars.flatMap(busySpans).sort((a, b) => a.start - b.start)) {
    if (bar.start - busyUntil >= minMs) gaps.push({ start: busyUntil, end: bar.start });
    busyUntil = Math.max(busyUntil, bar.end);
  }
  // The first bar starts the axis: there is no gap before it.
  return gaps.filter((gap) => Number.isFinite(gap.start));
}

/** Whether the view opens with gaps collapsed: one of them takes more than 40% of the wall time. */
export function collapseByDefault(gaps: readonly IdleGap[], span: number): boolean {
  return gaps.some((gap) => gap.end - gap.start > span * COLLAPSE_BY_DEFAULT_SHARE);
}

/** A piece of the axis: time drawn to scale, or a collapsed gap drawn as a narrow break; x from 0 to 1. */
export interface ScalePiece {
  kind: 'time' | 'break';
  start: number;
  end: number;
  x0: number;
  x1: number;
}

/** The time → x mapping of the axis: the visible range (ms from the session's start) cut into pieces. */
export interface TimeScale {
  from: number;
  to: number;
  pieces: ScalePiece[];
}

/**
 * The axis from `from` to `to` with the given gaps (sorted, apart) collapsed: each gap, clipped to
 * the range, becomes a break of `breakWidth` (narrower when there are many: breaks take at most
 * half the axis); the rest of the time shares what is left, to scale. Without gaps it is linear.
 */
export function createTimeScale(
  range: { from: number; to: number },
  gaps: readonly IdleGap[],
  breakWidth = BREAK_WIDTH,
): TimeScale {
  const { from } = range;
  const to = Math.max(range.to, from + 1e-6);
  const inside = gaps
    .map((gap) => ({ start: Math.max(gap.start, from), end: Math.min(gap.end, to) }))
    .filter((gap) => gap.end > gap.start);
  const busy = to - from - inside.reduce((sum, gap) => sum + gap.end - gap.start, 0);
  if (inside.length === 0 || busy <= 0)
    return { from, to, pieces: [{ kind: 'time', start: from, end: to, x0: 0, x1: 1 }] };

  const width = Math.min(breakWidth, 0.5 / inside.length);
  const perMs = (1 - width * inside.length) / busy;
  const pieces: ScalePiece[] = [];
  let t = from;
  let x = 0;
  const push = (kind: ScalePiece['kind'], end: number, x1: number) => {
    pieces.push({ kind, start: t, end, x0: x, x1 });
    t = end;
    x = x1;
  };
  for (const gap of inside) {
    if (gap.start > t) push('time', gap.start, x + (gap.start - t) * perMs);
    push('break', gap.end, x + width);
  }
  if (to > t) push('time', to, 1);
  const last = pieces.at(-1);
  if (last) last.x1 = 1;
  return { from, to, pieces };
}

/** Where a time (ms from the session's start) falls on the axis, 0 to 1; clamped to the range. */
export function timeToX(scale: TimeScale, time: number): number {
  const t = Math.min(Math.max(time, scale.from), scale.to);
  const piece = scale.pieces.find((p) => t <= p.end) ?? scale.pieces.at(-1);
  if (!piece) return 0;
  const length = piece.end - piece.start;
  return piece.x0 + (length > 0 ? (t - piece.start) / length : 0) * (piece.x1 - piece.x0);
}

/** The time at a point of the axis (0 to 1, clamped): the inverse of `timeToX`, for a drag selection. */
export function xToTime(scale: TimeScale, x: number): number {
  const at = Math.min(Math.max(x, 0), 1);
  const piece = scale.pieces.find((p) => at <= p.x1) ?? scale.pieces.at(-1);
  if (!piece) return scale.from;
  const width = piece.x1 - piece.x0;
  return piece.start + (width > 0 ? (at - piece.x0) / width : 0) * (piece.end - piece.start);
}

/** Ticks closer than this share of the axis to another tick or a break are left out. */
const TICK_SPACING = 0.06;

/**
 * The axis's ticks: round times (the step `axisTicks` picks for the time drawn to scale) inside
 * the pieces drawn to scale, none crowding another or a break.
 */
export function scaleTicks(scale: TimeScale): { time: number; x: number }[] {
  const timed = scale.pieces.filter((piece) => piece.kind === 'time');
  const busy = timed.reduce((sum, piece) => sum + piece.end - piece.start, 0);
  const [first, second] = axisTicks(busy);
  const step = second !== undefined && first !== undefined ? second - first : busy;
  if (!(step > 0)) return [];
  const breaks = scale.pieces.filter((piece) => piece.kind === 'break');
  const ticks: { time: number; x: number }[] = [];
  for (const piece of timed) {
    const lastK = Math.floor(piece.end / step + 1e-9);
    for (let k = Math.ceil(piece.start / step - 1e-9); k <= lastK; k++) {
      const time = Number((k * step).toPrecision(12));
      const x = timeToX(scale, time);
      const crowded =
        ticks.some((tick) => x - tick.x < TICK_SPACING) ||
        breaks.some((b) => x > b.x0 - TICK_SPACING && x < b.x1 + TICK_SPACING);
      if (!crowded) ticks.push({ time, x });
    }
  }
  return ticks;
}

/** Twice as wide a range around the same middle, kept inside the session; null once it is the whole session. */
export function zoomOut(range: { from: number; to: number }, span: number): { from: number; to: number } | null {
  const width = (range.to - range.from) * 2;
  if (width >= span) return null;
  const from = Math.min(Math.max(0, (range.from + range.to) / 2 - width / 2), span - width);
  return { from, to: from + width };
}
