import { describe, expect, it } from 'vitest';
import { traceJson } from '../api/serialize';
import { makeTrace } from '../db/trace-store-suite';
import { traceFromJson } from './trace-from-json';

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
});
