import { describe, expect, it } from 'vitest';
import type { AttemptOutcome } from '@/lib/executor/types';
import {
  collapseByDefault,
  createTimeScale,
  findIdleGaps,
  groupByBatch,
  idleGapThreshold,
  layoutTimeline,
  type SessionCallJson,
  scaleTicks,
  timeToX,
  xToTime,
  zoomOut,
} from './timeline-layout';

const T0 = Date.UTC(2026, 10, 30, 12);
let n = 0;

function call(start: number, end: number | null, overrides: Partial<SessionCallJson> = {}): SessionCallJson {
  n += 1;
  return {
    id: `t${n}`,
    tool_call_id: `c${n}`,
    imported: false,
    session_id: 's',
    actor: 'api',
    principal: null,
    tool: 'calculator',
    status: end === null ? 'running' : 'succeeded',
    latency_ms: end === null ? null : end - start,
    approval_wait_ms: null,
    attempts: [],
    error_code: null,
    arguments_preview: null,
    summary: '',
    session_seq: n,
    served_from: null,
    flags: { retried: false, fell_back: false, truncated: false, faulted: false, replayed: false },
    created_at: new Date(T0 + start).toISOString(),
    finished_at: end === null ? null : new Date(T0 + end).toISOString(),
    batch_id: null,
    started_at: new Date(T0 + start).toISOString(),
    approval: null,
    ...overrides,
  };
}

describe('layoutTimeline', () => {
  it('puts concurrent calls in separate lanes and a sequential run in one, greedily', () => {
    const a = call(0, 100, { batch_id: 'b1' });
    const b = call(10, 50, { batch_id: 'b1' });
    const c = call(60, 90);
    const d = call(100, 120);
    const e = call(105, null);
    const layout = layoutTimeline([a, b, c, d, e], T0 + 200);
    expect(layout.bars.map((bar) => [bar.call.id, bar.lane])).toEqual([
      [a.id, 0],
      [b.id, 1],
      [c.id, 1],
      [d.id, 0],
      [e.id, 1],
    ]);
    expect(layout.lanes).toBe(2);
    expect(layout.span).toBe(200);
    expect(layout.bars.at(-1)).toMatchObject({ start: 105, end: 200 });
    expect(layout.batches).toEqual([{ id: 'b1', number: 1, start: 0, end: 100, callIds: [a.id, b.id] }]);
  });

  it('cuts a bar into approval wait, execution, backoff and retries', () => {
    const attempt = (number: number, startedAt: number, durationMs: number, outcome: AttemptOutcome) => ({
      number,
      started_at: startedAt,
      duration_ms: durationMs,
      outcome,
    });
    const waited = call(0, 1000, {
      approval: {
        requested_at: new Date(T0 + 5).toISOString(),
        decided_at: new Date(T0 + 505).toISOString(),
        decision: 'approved',
      },
      attempts: [attempt(1, 510, 20, 'error'), attempt(2, 630, 30, 'error'), attempt(3, 900, 10, 'ok')],
    });
    const [bar] = layoutTimeline([waited], T0 + 2000).bars;
    expect(bar?.segments).toEqual([
      { kind: 'approval_wait', start: 5, end: 505 },
      { kind: 'execution', start: 510, end: 530, attempt: 1, outcome: 'error' },
      { kind: 'backoff', start: 530, end: 630 },
      { kind: 'retry', start: 630, end: 660, attempt: 2, outcome: 'error' },
      { kind: 'backoff', start: 660, end: 900 },
      { kind: 'retry', start: 900, end: 910, attempt: 3, outcome: 'ok' },
    ]);
  });

  it('draws an open wait up to now', () => {
    const waiting = call(0, null, {
      status: 'awaiting_approval',
      approval: { requested_at: new Date(T0 + 2).toISOString(), decided_at: null, decision: null },
    });
    expect(layoutTimeline([waiting], T0 + 300).bars[0]?.segments).toEqual([
      { kind: 'approval_wait', start: 2, end: 300 },
    ]);
  });
});

describe('groupByBatch', () => {
  it('groups consecutive calls of one batch; a call without a batch stands alone', () => {
    const calls = [
      call(0, 1, { batch_id: 'x' }),
      call(0, 1, { batch_id: 'x' }),
      call(2, 3),
      call(4, 5),
      call(6, 7, { batch_id: 'y' }),
    ];
    expect(groupByBatch(calls).map((group) => [group.batchId, group.calls.length])).toEqual([
      ['x', 2],
      [null, 1],
      [null, 1],
      ['y', 1],
    ]);
  });
});

describe('idle gaps and the time scale', () => {
  it('finds the gaps between the merged spans of the calls, at least the threshold long', () => {
    const bars = [
      { start: 0, end: 100 },
      { start: 50, end: 300 },
      { start: 350, end: 400 },
      { start: 5_000, end: 5_100 },
      { start: 5_050, end: 5_200 },
      { start: 9_000, end: 9_500 },
    ];
    expect(findIdleGaps(bars, 1000)).toEqual([
      { start: 400, end: 5_000 },
      { start: 5_200, end: 9_000 },
    ]);
    expect(findIdleGaps(bars, 4000)).toEqual([{ start: 400, end: 5_000 }]);
    expect(findIdleGaps([], 1000)).toEqual([]);
    expect(idleGapThreshold(10_000)).toBe(1000);
    expect(idleGapThreshold(600_000)).toBe(30_000);
  });

  it('counts a wait for a person as idle: a two-minute approval collapses like a gap', () => {
    const before = call(0, 50);
    const waited = call(100, 120_200, {
      approval: {
        requested_at: new Date(T0 + 110).toISOString(),
        decided_at: new Date(T0 + 120_100).toISOString(),
        decision: 'approved',
      },
    });
    const after = call(120_300, 120_400);
    const later = call(200_000, 200_100);
    const layout = layoutTimeline([before, waited, after, later], T0 + 300_000);
    const gaps = findIdleGaps(layout.bars, idleGapThreshold(layout.span));
    // The wait (110 → 120,100) is idle; the call's start and its run after the decision are not.
    expect(gaps).toEqual([
      { start: 110, end: 120_100 },
      { start: 120_400, end: 200_000 },
    ]);
    expect(collapseByDefault(gaps, layout.span)).toBe(true);
    expect(collapseByDefault([{ start: 0, end: 81_000 }], 200_000)).toBe(true);
  });

  it('maps time to x linearly without gaps, and back', () => {
    const scale = createTimeScale({ from: 0, to: 1000 }, []);
    expect(timeToX(scale, 250)).toBe(0.25);
    expect(xToTime(scale, 0.75)).toBe(750);
    expect(timeToX(scale, -5)).toBe(0);
    expect(timeToX(scale, 2000)).toBe(1);
    expect(scaleTicks(scale).map((tick) => tick.time)).toEqual([0, 200, 400, 600, 800, 1000]);
  });

  it('draws each collapsed gap as a narrow break and the busy time to scale around it', () => {
    // 100 ms busy, 10 s idle, 100 ms busy: the two busy stretches share what the break leaves.
    const scale = createTimeScale({ from: 0, to: 10_200 }, [{ start: 100, end: 10_100 }], 0.04);
    expect(scale.pieces).toEqual([
      { kind: 'time', start: 0, end: 100, x0: 0, x1: 0.48 },
      { kind: 'break', start: 100, end: 10_100, x0: 0.48, x1: 0.52 },
      { kind: 'time', start: 10_100, end: 10_200, x0: 0.52, x1: 1 },
    ]);
    expect(timeToX(scale, 50)).toBeCloseTo(0.24);
    expect(timeToX(scale, 5_100)).toBeCloseTo(0.5);
    expect(timeToX(scale, 10_150)).toBeCloseTo(0.76);
    for (const time of [0, 30, 100, 2_600, 10_100, 10_180, 10_200]) {
      expect(xToTime(scale, timeToX(scale, time))).toBeCloseTo(time);
    }
    // No tick inside or next to the break.
    const ticks = scaleTicks(scale);
    expect(ticks.length).toBeGreaterThan(2);
    expect(ticks.every((tick) => tick.x < 0.42 || tick.x > 0.58)).toBe(true);
  });

  it('zooms and collapses together: gaps are clipped to the range, a range inside a gap is drawn linear', () => {
    const gaps = [
      { start: 100, end: 10_100 },
      { start: 10_200, end: 20_200 },
    ];
    // From the middle of the first gap to the middle of the second busy stretch.
    const scale = createTimeScale({ from: 5_100, to: 10_150 }, gaps, 0.04);
    expect(scale.pieces).toEqual([
      { kind: 'break', start: 5_100, end: 10_100, x0: 0, x1: 0.04 },
      { kind: 'time', start: 10_100, end: 10_150, x0: 0.04, x1: 1 },
    ]);
    expect(xToTime(scale, 0.52)).toBeCloseTo(10_125);
    // Many gaps: the breaks together take at most half of the axis.
    const many = Array.from({ length: 20 }, (_, i) => ({ start: i * 2000 + 100, end: i * 2000 + 2000 }));
    const crowded = createTimeScale({ from: 0, to: 40_000 }, many, 0.04);
    const breakShare = crowded.pieces
      .filter((piece) => piece.kind === 'break')
      .reduce((sum, piece) => sum + piece.x1 - piece.x0, 0);
    expect(breakShare).toBeCloseTo(0.5);
    expect(createTimeScale({ from: 200, to: 900 }, [{ start: 100, end: 1000 }]).pieces).toEqual([
      { kind: 'time', start: 200, end: 900, x0: 0, x1: 1 },
    ]);
  });

  it('zooms out around the middle, inside the session, back to the whole', () => {
    expect(zoomOut({ from: 400, to: 600 }, 1000)).toEqual({ from: 300, to: 700 });
    expect(zoomOut({ from: 0, to: 100 }, 1000)).toEqual({ from: 0, to: 200 });
    expect(zoomOut({ from: 950, to: 1000 }, 1000)).toEqual({ from: 900, to: 1000 });
    expect(zoomOut({ from: 200, to: 700 }, 1000)).toBeNull();
  });
});
