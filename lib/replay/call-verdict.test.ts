import { describe, expect, it } from 'vitest';
import { type ComparableCall, judgeCalls } from './call-verdict';
import { ignoreRules, NO_IGNORE_RULES } from './volatile-paths';

const call = (overrides: Partial<ComparableCall> = {}): ComparableCall => ({
  status: 'succeeded',
  errorCode: null,
  output: { ok: true },
  stdout: null,
  stderr: null,
  exitCode: null,
  ...overrides,
});
const rules = ignoreRules();

describe('judgeCalls', () => {
  it('is pending while either call runs or awaits approval: no verdict, whatever differs', () => {
    for (const status of ['running', 'awaiting_approval']) {
      expect(judgeCalls(call(), call({ status, output: null }), rules)).toEqual({
        pending: true,
        outcome: false,
        output: false,
        ignored: [],
      });
      expect(judgeCalls(call({ status }), call({ status: 'failed', errorCode: 'X' }), rules).pending).toBe(true);
    }
  });

  it('judges the outcome by status and error code', () => {
    expect(judgeCalls(call(), call(), rules)).toEqual({ pending: false, outcome: false, output: false, ignored: [] });
    expect(judgeCalls(call(), call({ status: 'failed' }), rules).outcome).toBe(true);
    expect(
      judgeCalls(call({ status: 'failed', errorCode: 'A' }), call({ status: 'failed', errorCode: 'B' }), rules).outcome,
    ).toBe(true);
  });

  it('leaves volatile output paths out of "output changed", and lists them', () => {
    const a = call({ output: { ok: true, headers: { date: 'x' }, created_at: '2026-01-01T00:00:00Z' } });
    const b = call({ output: { ok: true, headers: { date: 'y' }, created_at: '2026-01-01T00:00:09Z' } });
    const verdict = judgeCalls(a, b, rules);
    expect(verdict.output).toBe(false);
    expect(verdict.ignored.map((change) => change.path)).toEqual(['created_at', 'headers.date']);
    expect(judgeCalls(a, b, NO_IGNORE_RULES).output).toBe(true);
    expect(judgeCalls(a, call({ ...b, output: { ...(b.output as object), ok: false } }), rules).output).toBe(true);
  });

  it('judges stdout through the output when stdout is the output (JSON printed), else as text', () => {
    const printed = (at: string) =>
      call({ stdout: `{"ok":true,"served_at":"${at}"}\n`, output: { ok: true, served_at: at }, exitCode: 0 });
    expect(judgeCalls(printed('2026-01-01T00:00:00Z'), printed('2026-01-01T00:00:01Z'), rules)).toMatchObject({
      output: false,
      ignored: [{ path: 'served_at' }],
    });
    const text = (out: string) => call({ stdout: out, output: out, exitCode: 0 });
    expect(judgeCalls(text('a\n'), text('b\n'), rules).output).toBe(true);
    expect(judgeCalls(call({ stdout: 'x' }), call({ stdout: 'y' }), rules).output).toBe(true);
  });

  it('counts stderr and the exit code as output', () => {
    expect(judgeCalls(call({ stderr: 'warn' }), call(), rules).output).toBe(true);
    expect(judgeCalls(call({ exitCode: 0 }), call({ exitCode: 1 }), rules).output).toBe(true);
    expect(judgeCalls(call({ stderr: null }), call({ stderr: '' }), rules).output).toBe(false);
  });
});
