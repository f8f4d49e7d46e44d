import { describe, expect, it } from 'vitest';
import { makeTrace } from '../db/trace-store-suite';
import { spanRecordOf } from './call-spans';

describe('spanRecordOf', () => {
  const record = makeTrace({
    rawArguments: '{"token":"sk-live-raw"}',
    arguments: { token: '[REDACTED]' },
    output: { text: 'x'.repeat(100_000) },
    stdout: 'a long log',
    modelMessage: 'the model message',
  });

  it('copies to the worker what the spans read, never the raw arguments, stdout or the model message', () => {
    const copied = spanRecordOf(record, false);
    expect(copied).toMatchObject({
      id: record.id,
      tool: record.tool,
      stages: record.stages,
      attempts: record.attempts,
    });
    expect(JSON.stringify(copied)).not.toContain('sk-live-raw');
    for (const key of ['rawArguments', 'stdout', 'modelMessage', 'arguments', 'output']) {
      expect(copied).not.toHaveProperty(key);
    }
  });

  it('adds the redacted arguments and the output only when content is captured', () => {
    const copied = spanRecordOf(record, true);
    expect(copied.arguments).toEqual({ token: '[REDACTED]' });
    expect(copied.output).toEqual(record.output);
    expect(JSON.stringify(copied)).not.toContain('sk-live-raw');
  });
});
