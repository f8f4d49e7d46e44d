import { describe, expect, it } from 'vitest';
import { makeTrace } from '../db/trace-store-suite';
import type { TraceRecord } from '../executor/types';
import { packCallItem, type SpanRecord, unpackCallItems } from './call-spans';

const ids = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' };

/** What the spans read of a record: every field of `SpanRecord`, the content only when captured. */
function spanFields(record: TraceRecord, captureContent: boolean): SpanRecord {
  const { id, toolCallId, sessionId, actor, tool, status, sideEffect, createdAt, finishedAt, latencyMs } = record;
  const { stages, attempts, error, approval, replayOf, batchId, servedFrom, traceContext } = record;
  const fields: SpanRecord = {
    ...{ id, toolCallId, sessionId, actor, tool, status, sideEffect, createdAt, finishedAt, latencyMs },
    ...{ stages, attempts, error, approval, replayOf, batchId, servedFrom },
  };
  if (traceContext) fields.traceContext = traceContext;
  if (captureContent) {
    fields.arguments = record.arguments;
    fields.editedArguments = record.editedArguments;
    fields.output = record.output;
  }
  return fields;
}

describe('packCallItem and unpackCallItems', () => {
  const record = makeTrace({
    rawArguments: '{"token":"sk-live-raw"}',
    arguments: { token: '[REDACTED]' },
    output: { text: 'x'.repeat(100_000) },
    stdout: 'a long log',
    modelMessage: 'the model message',
  });

  it('packs what the spans read as plain values only, never the raw arguments, stdout or the model message', () => {
    const packed: unknown[] = [];
    packCallItem(packed, record, false, undefined, ids);
    expect(packed.every((value) => value === null || typeof value !== 'object')).toBe(true);
    const text = JSON.stringify(packed);
    for (const left of ['sk-live-raw', 'a long log', 'the model message', '[REDACTED]', 'xxxx']) {
      expect(text).not.toContain(left);
    }
    expect(unpackCallItems(packed)).toEqual([{ record: spanFields(record, false), ids }]);
  });

  it('adds the redacted arguments, the edits and the output only when content is captured', () => {
    const edited = { ...record, editedArguments: { token: '[REDACTED]', n: 2 } };
    const packed: unknown[] = [];
    packCallItem(packed, edited, true, { type: 'function' }, ids);
    expect(JSON.stringify(packed)).not.toContain('sk-live-raw');
    const [item] = unpackCallItems(packed);
    expect(item?.record).toEqual(spanFields(edited, true));
    expect(item?.info).toEqual({ type: 'function' });
  });

  it('reads back several calls with every rare field: errors, approvals, trace contexts, faults, retries, content of every type', () => {
    const failed = makeTrace({
      status: 'failed',
      sideEffect: null,
      sessionId: null,
      arguments: 'not json',
      output: undefined,
      error: {
        code: 'TIMEOUT',
        message: 'timed out after 100 ms',
        retryable: true,
        kind: 'timeout',
        details: { ms: 100 },
      },
      approval: {
        rule: 'write: ask',
        requestedAt: 1,
        expiresAt: null,
        decision: 'approved',
        by: 'ana',
        decidedAt: 5,
        reason: null,
        ruleCreated: null,
      },
      traceContext: { traceId: ids.traceId, spanId: ids.spanId, flags: 1, tracestate: 'a=1' },
      replayOf: 'trace-0',
      batchId: 'batch-1',
      servedFrom: 'trace-00',
      finishedAt: null,
      latencyMs: null,
      stages: [
        { name: 'parse', status: 'ok', startedAt: 0, durationMs: 0.1, detail: null },
        { name: 'execute', status: 'failed', startedAt: 0.2, durationMs: 100, detail: '2 attempts' },
        { name: 'normalize', status: 'skipped', startedAt: 100.2, durationMs: 0, detail: null },
      ],
      attempts: [
        {
          number: 1,
          tool: 'http_request',
          fallback: false,
          startedAt: 0.2,
          durationMs: 50,
          outcome: 'timeout',
          timeoutMs: 50,
          error: { code: 'TIMEOUT', message: 'timed out', retryable: true, kind: 'timeout' },
          backoffMs: 10,
          backoffReason: 'Retry-After 1 s',
          fault: { ruleId: 'rule-1', ruleName: 'slow', kind: 'latency', ms: 60 },
        },
        {
          number: 2,
          tool: 'fetch_backup',
          fallback: true,
          startedAt: 60.2,
          durationMs: 40,
          outcome: 'error',
          error: null,
          backoffMs: null,
          fault: null,
        },
      ],
    });
    const plain = makeTrace({ output: null });
    const packed: unknown[] = [];
    packCallItem(packed, failed, true, { type: 'extension', description: 'Fetches a page' }, ids);
    packCallItem(packed, plain, true, undefined, ids);
    const items = unpackCallItems(packed);
    expect(items).toEqual([
      { record: spanFields(failed, true), info: { type: 'extension', description: 'Fetches a page' }, ids },
      { record: spanFields(plain, true), ids },
    ]);
    // An output of null stays null (a result), an absent one stays absent.
    expect(items[1]?.record.output).toBeNull();
    expect(items[0]?.record).not.toHaveProperty('output', null);
  });
});
