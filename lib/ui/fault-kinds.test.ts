import { describe, expect, it } from 'vitest';
import type { AttemptFault } from '../executor/types';
import {
  attemptFaultSummary,
  FAULT_KIND_NAMES,
  FAULT_KINDS,
  faultRuleHref,
  faultSource,
  faultSources,
  paramsSummary,
} from './fault-kinds';

describe('fault kinds', () => {
  it('covers every kind the API takes, with the params it names', () => {
    expect(FAULT_KIND_NAMES).toEqual([
      'latency',
      'timeout',
      'error',
      'fail_first',
      'corrupt_output',
      'exit_code',
      'rate_limit',
    ]);
    const keys = Object.fromEntries(FAULT_KIND_NAMES.map((kind) => [kind, FAULT_KINDS[kind].fields.map((f) => f.key)]));
    expect(keys).toEqual({
      latency: ['ms', 'jitter_ms'],
      timeout: [],
      error: ['code', 'message', 'retryable'],
      fail_first: ['n'],
      corrupt_output: ['mode', 'value'],
      exit_code: ['code', 'stderr'],
      rate_limit: ['retry_after_ms'],
    });
  });

  it("summarizes a rule's params in a few words", () => {
    expect(paramsSummary('latency', { ms: 500 })).toBe('500 ms');
    expect(paramsSummary('latency', { ms: 500, jitter_ms: 100 })).toBe('500 ms + up to 100 ms');
    expect(paramsSummary('timeout', {})).toBe('hangs until the time limit');
    expect(paramsSummary('error', { code: 'UPSTREAM_DOWN', retryable: true, message: 'down' })).toBe(
      'UPSTREAM_DOWN (retryable): down',
    );
    expect(paramsSummary('fail_first', { n: 1 })).toBe('first 1 attempt');
    expect(paramsSummary('fail_first', { n: 2 })).toBe('first 2 attempts');
    expect(paramsSummary('corrupt_output', { mode: 'replace', value: { a: 1 } })).toBe('replace → {"a":1}');
    expect(paramsSummary('corrupt_output', { mode: 'truncate' })).toBe('truncate');
    expect(paramsSummary('exit_code', { code: 137, stderr: 'Killed' })).toBe('exit 137, stderr "Killed"');
    expect(paramsSummary('rate_limit', { retry_after_ms: 2000 })).toBe('retry after 2 s');
  });

  it('says what a fault did to one attempt', () => {
    const rule = { ruleId: 'flt_1', ruleName: 'flaky' };
    expect(attemptFaultSummary({ ...rule, kind: 'latency', ms: 130, jitterMs: 50 }, 1)).toBe(
      'latency 130 ms (jitter up to 50 ms)',
    );
    expect(attemptFaultSummary({ ...rule, kind: 'fail_first', n: 2 }, 1)).toBe('fail_first 1/2');
    expect(attemptFaultSummary({ ...rule, kind: 'fail_first', n: 2 }, 2)).toBe('fail_first 2/2');
    expect(attemptFaultSummary({ ...rule, kind: 'rate_limit', retryAfterMs: 2000 }, 1)).toBe(
      'rate_limit retry after 2 s',
    );
    expect(attemptFaultSummary({ ...rule, kind: 'error', code: 'E', retryable: true }, 1)).toBe('error E (retryable)');
    expect(attemptFaultSummary({ ...rule, kind: 'exit_code', code: 3 }, 1)).toBe('exit_code 3');
    expect(attemptFaultSummary({ ...rule, kind: 'corrupt_output', mode: 'invalid_json' }, 1)).toBe(
      'corrupt_output invalid_json',
    );
    expect(attemptFaultSummary({ ...rule, kind: 'timeout' }, 1)).toBe('timeout (hung until the limit)');
  });

  it('names who injected it and links to the rule', () => {
    expect(faultSource({ ruleId: 'flt_1', ruleName: 'flaky', kind: 'timeout' })).toBe('rule “flaky”');
    expect(faultSource({ ruleId: 'flt_1', kind: 'timeout' })).toBe('rule “flt_1”');
    expect(faultSource({ ruleId: null, kind: 'timeout' })).toBe('a one-off fault');
    expect(faultRuleHref('flt_a b')).toBe('/faults?rule=flt_a%20b');
  });
});

describe('fault origins of a call', () => {
  const attempt = (number: number, fault: AttemptFault | null) => ({
    number,
    tool: 't',
    fallback: false,
    startedAt: 0,
    durationMs: 1,
    outcome: 'error' as const,
    error: null,
    backoffMs: null,
    fault,
  });
  it('groups the faults by rule, in order of first attempt, with the attempts each hit', () => {
    expect(
      faultSources([
        attempt(1, { ruleId: 'flt_1', ruleName: 'flaky', kind: 'fail_first', n: 2 }),
        attempt(2, { ruleId: 'flt_2', kind: 'latency', ms: 20 }),
        attempt(3, { ruleId: 'flt_1', ruleName: 'flaky', kind: 'fail_first', n: 2 }),
        attempt(4, null),
        attempt(5, { ruleId: null, kind: 'timeout' }),
      ]),
    ).toEqual([
      { ruleId: 'flt_1', name: 'flaky', kinds: ['fail_first'], attempts: [1, 3] },
      { ruleId: 'flt_2', name: 'flt_2', kinds: ['latency'], attempts: [2] },
      { ruleId: null, name: 'a one-off fault', kinds: ['timeout'], attempts: [5] },
    ]);
    expect(faultSources([attempt(1, null)])).toEqual([]);
  });
});
