import type { SessionDetailJson } from '@/lib/api/sessions';

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
