import { describe, expect, it } from 'vitest';
import { traceJson } from '../api/serialize';
import { makeTrace } from '../db/trace-store-suite';
import { faultFromJson, traceFromJson } from './trace-from-json';

describe('traceFromJson', () => {
  it('gives back the trace the API serialized, running parts, limits and truncation included', () => {
    const trace = makeTrace({
      status: 'running',
      finishedAt: null,
      latencyMs: null,
      stages: [{ name: 'execute', status: 'running', startedAt: 3, durationMs: 0, detail: null }],
      attempts: [
        {
          number: 1,
          tool: 'run_shell',
          fallback: false,
          startedAt: 3,
          durationMs: 0,
          outcome: 'running',
          timeoutMs: 30_000,
          error: null,
          backoffMs: null,
          fault: null,
        },
      ],
      stdout: 'tick 1\n',
      modelTruncation: { headChars: 10, tailChars: 10, totalChars: 1000 },
      rawArguments: '{"command":["sh","-c","echo sealed-secret"]}',
    });
    const json = JSON.parse(JSON.stringify(traceJson({ ...trace, sessionSeq: 4 })));
    expect(json).not.toHaveProperty('raw_arguments');
    expect(JSON.stringify(json)).not.toContain('sealed-secret');
    const { rawArguments: _sealed, rawEditedArguments: _sealedEdit, ...expected } = trace;
    expect(traceFromJson(json)).toEqual({ ...expected, sessionSeq: 4 });
  });

  it("reads back each attempt's injected fault: rule, kind, params camelCased, one-off faults without a rule", () => {
    const base = { tool: 'http_request', fallback: false, durationMs: 5, timeoutMs: 1_000, backoffMs: 200 };
    const trace = makeTrace({
      attempts: [
        {
          ...base,
          number: 1,
          startedAt: 1,
          outcome: 'error',
          error: {
            code: 'INJECTED_FAILURE',
            message: 'Injected fault',
            retryable: true,
            kind: 'temporary',
            stage: 'execute',
          },
          fault: { ruleId: 'flt_1', ruleName: 'flaky http', kind: 'fail_first', n: 2 },
        },
        {
          ...base,
          number: 2,
          startedAt: 210,
          outcome: 'error',
          error: { code: 'RATE_LIMITED', message: '429', retryable: true, kind: 'temporary', stage: 'execute' },
          backoffReason: 'Retry-After 2 s',
          fault: { ruleId: 'flt_2', kind: 'rate_limit', retryAfterMs: 2_000 },
        },
        {
          ...base,
          number: 3,
          startedAt: 2_300,
          outcome: 'ok',
          error: null,
          backoffMs: null,
          fault: { ruleId: null, kind: 'latency', ms: 130, jitterMs: 50 },
        },
        {
          ...base,
          number: 4,
          startedAt: 2_500,
          outcome: 'ok',
          error: null,
          backoffMs: null,
          fault: {
            ruleId: 'flt_3',
            kind: 'corrupt_output',
            mode: 'replace',
            value: { some_key: [1, { deep_key: 2 }] },
          },
        },
      ],
      flags: { retried: true, fellBack: false, truncated: false, faulted: true, replayed: false },
    });
    const json = JSON.parse(JSON.stringify(traceJson(trace)));
    expect(json.attempts[1].fault).toEqual({ rule_id: 'flt_2', kind: 'rate_limit', retry_after_ms: 2_000 });
    expect(json.flags.faulted).toBe(true);
    const view = traceFromJson(json);
    expect(view.attempts.map((a) => a.fault)).toEqual(trace.attempts.map((a) => a.fault));
    expect(view.flags.faulted).toBe(true);
  });

  it('takes an attempt without a fault, or with one it cannot read, as no fault', () => {
    expect(faultFromJson(null)).toBeNull();
    expect(faultFromJson('latency')).toBeNull();
    expect(faultFromJson({ rule_id: 'x' })).toBeNull();
    expect(faultFromJson({ kind: 'timeout' })).toEqual({ kind: 'timeout', ruleId: null });
  });
});
