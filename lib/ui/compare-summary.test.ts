import { describe, expect, it } from 'vitest';
import { ignoreRules } from '../replay/volatile-paths';
import { compareRows, compareVerdict } from './compare-summary';
import type { TraceView } from './trace-from-json';

function trace(overrides: Partial<TraceView>): TraceView {
  return {
    id: 't1',
    toolCallId: 'c1',
    sessionId: 's1',
    actor: 'agent',
    principal: null,
    tool: 'calculator',
    status: 'succeeded',
    sideEffect: 'none',
    arguments: { expression: '2+2' },
    editedArguments: null,
    replayOf: null,
    batchId: null,
    servedFrom: null,
    approval: null,
    createdAt: 0,
    finishedAt: 10,
    latencyMs: 10,
    stages: [],
    attempts: [],
    output: 4,
    stdout: null,
    stderr: null,
    exitCode: null,
    error: null,
    modelMessage: null,
    modelTruncation: null,
    flags: { retried: false, fellBack: false, truncated: false, faulted: false, replayed: false },
    metadata: {},
    ...overrides,
  };
}

describe('compareVerdict', () => {
  it('sees a changed argument and output, the outcome unchanged', () => {
    const a = trace({});
    const b = trace({ id: 't2', arguments: { expression: '6*7' }, output: 42, actor: 'replay' });
    expect(compareVerdict(a, b)).toEqual({
      pending: false,
      outcomeChanged: false,
      outputChanged: true,
      argumentsChanged: true,
      ignored: [],
    });
  });

  it('is pending while either call runs or awaits approval, not "outcome changed"', () => {
    const running = trace({ id: 't2', status: 'awaiting_approval', output: null, finishedAt: null, latencyMs: null });
    expect(compareVerdict(trace({}), running)).toMatchObject({
      pending: true,
      outcomeChanged: false,
      outputChanged: false,
    });
  });

  it('leaves volatile output paths out, by the default rules and the given ones', () => {
    const a = trace({ output: { v: 1, headers: { date: 'Mon' }, meta: { trace: 'x' } } });
    const b = trace({ id: 't2', output: { v: 1, headers: { date: 'Tue' }, meta: { trace: 'y' } } });
    expect(compareVerdict(a, b)).toMatchObject({ outputChanged: true, ignored: [{ path: 'headers.date' }] });
    expect(compareVerdict(a, b, ignoreRules(['meta.trace']))).toMatchObject({ outputChanged: false });
    expect(compareVerdict(a, b, ignoreRules(['meta.trace'])).ignored.map((c) => c.rule)).toEqual([
      '**.headers.date',
      'meta.trace',
    ]);
  });

  it('counts the exit code as output', () => {
    expect(compareVerdict(trace({ exitCode: 0 }), trace({ exitCode: 2 })).outputChanged).toBe(true);
  });

  it('sees a changed outcome by status or error code, and compares what ran (an approver edit)', () => {
    const failed = trace({
      status: 'failed',
      output: null,
      error: { code: 'TOOL_ERROR', message: 'x', retryable: false, kind: 'business' } as TraceView['error'],
    });
    expect(compareVerdict(trace({}), failed).outcomeChanged).toBe(true);
    const edited = trace({ editedArguments: { expression: '6*7' } });
    expect(compareVerdict(edited, trace({ arguments: { expression: '6*7' } })).argumentsChanged).toBe(false);
  });

  it('counts stdout and stderr as output', () => {
    expect(compareVerdict(trace({ stdout: 'a' }), trace({ stdout: 'b' })).outputChanged).toBe(true);
  });
});

describe('compareRows', () => {
  it('marks the rows that differ, never latency, which gets a delta instead', () => {
    const rows = compareRows(trace({ latencyMs: 100 }), trace({ latencyMs: 250, actor: 'replay' }));
    expect(rows.filter((r) => r.changed).map((r) => r.field)).toEqual(['actor']);
    expect(rows.find((r) => r.field === 'latency')).toMatchObject({
      a: '100 ms',
      b: '250 ms',
      delta: '+150 ms (×2.5)',
    });
  });
});
