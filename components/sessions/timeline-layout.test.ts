import { describe, expect, it } from 'vitest';
import type { AttemptOutcome } from '@/lib/executor/types';
import { groupByBatch, layoutTimeline, type SessionCallJson } from './timeline-layout';

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
    attempts: [],
    error_code: null,
    arguments_preview: null,
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
