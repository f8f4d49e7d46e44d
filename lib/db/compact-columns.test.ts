import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { describeErrorForModel } from '../executor/model-message';
import type { Attempt, ToolErrorData, TraceStage } from '../executor/types';
import {
  decodeAttempts,
  decodeModelMessage,
  decodeStages,
  encodeAttempts,
  encodeModelMessage,
  encodeStages,
} from './compact-columns';

const stage = fc.record({
  name: fc.constantFrom('parse', 'validate', 'permission', 'execute', 'normalize', 'trace'),
  status: fc.constantFrom('ok', 'failed', 'skipped', 'waiting', 'running'),
  startedAt: fc.double({ min: 0, max: 1e6, noNaN: true }),
  durationMs: fc.double({ min: 0, max: 1e6, noNaN: true }),
  detail: fc.option(fc.string(), { nil: null }),
}) as fc.Arbitrary<TraceStage>;

const error = fc.record({
  code: fc.string(),
  message: fc.string(),
  retryable: fc.boolean(),
  kind: fc.constantFrom('business', 'internal'),
});

const attempt = fc
  .record(
    {
      number: fc.integer({ min: 1, max: 5 }),
      tool: fc.constantFrom('read_file', 'fallback_tool'),
      fallback: fc.boolean(),
      startedAt: fc.double({ min: 0, max: 1e6, noNaN: true }),
      durationMs: fc.double({ min: 0, max: 1e6, noNaN: true }),
      outcome: fc.constantFrom('ok', 'error', 'timeout', 'cancelled', 'running'),
      timeoutMs: fc.oneof(
        fc.integer({ min: 1, max: 60_000 }),
        fc.integer({ min: 0, max: 3_600 }).map((seconds) => seconds * 1000),
        fc.integer({ min: 0, max: 60_000 }).map((ms) => ms + 0.25),
      ),
      error: fc.option(error, { nil: null }),
      backoffMs: fc.option(fc.integer({ min: 0, max: 10_000 }), { nil: null }),
      backoffReason: fc.string(),
      fault: fc.option(fc.record({ ruleId: fc.option(fc.string(), { nil: null }), kind: fc.constant('error') }), {
        nil: null,
      }),
    },
    {
      requiredKeys: ['number', 'tool', 'fallback', 'startedAt', 'durationMs', 'outcome', 'error', 'backoffMs', 'fault'],
    },
  )
  .map((value) => value as unknown as Attempt);

/** The tuple JSON text migration 0010 wrote (what rows from then until 0012 hold). */
function stageTuplesText(stages: readonly TraceStage[]): string {
  const common = ['JSON string', 'finalized', '1 attempt'];
  const names = ['parse', 'validate', 'permission', 'execute', 'normalize', 'trace'];
  return JSON.stringify(
    stages.map((stage, index) => {
      const detail =
        stage.detail === null ? null : common.includes(stage.detail) ? common.indexOf(stage.detail) : stage.detail;
      const tail: unknown[] = [stage.startedAt, stage.durationMs];
      if (stage.status !== 'ok' || detail !== null) tail.push(detail);
      if (stage.status !== 'ok') tail.push(stage.status);
      return names[index] === stage.name ? tail : [stage.name, ...tail];
    }),
  );
}

const callError = JSON.stringify({ code: 'HTTP_ERROR', message: 'HTTP 502', retryable: true, kind: 'business' });

describe('compact columns', () => {
  it('round-trips any stages exactly (NaN, -0 and lone surrogates included), and reads the JSON of older rows', () => {
    const anyDetail = fc.option(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('1 attempt')), {
      nil: null,
    });
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            name: fc.constantFrom('parse', 'validate', 'permission', 'execute', 'normalize', 'trace'),
            status: fc.constantFrom('ok', 'failed', 'skipped', 'waiting', 'running'),
            startedAt: fc.oneof(
              fc.double(),
              fc.integer({ min: 0, max: 10_000_000 }).map((us) => us / 1000),
            ),
            durationMs: fc.oneof(
              fc.double(),
              fc.integer({ min: 0, max: 10_000_000 }).map((us) => us / 1000),
            ),
            detail: anyDetail,
          }) as fc.Arbitrary<TraceStage>,
          { maxLength: 8 },
        ),
        (stages) => {
          // toEqual compares numbers with Object.is: -0 and NaN must come back as they were.
          expect(decodeStages(encodeStages(stages))).toEqual(stages);
        },
      ),
    );
    fc.assert(
      fc.property(fc.array(stage, { maxLength: 8 }), (stages) => {
        expect(decodeStages(JSON.stringify(stages))).toEqual(stages);
        expect(decodeStages(stageTuplesText(stages))).toEqual(stages);
      }),
    );
  });

  it('writes the usual six stages of a call in a quarter of the bytes of their JSON tuples', () => {
    const stages: TraceStage[] = [
      { name: 'parse', status: 'ok', startedAt: 0, durationMs: 0.399, detail: 'JSON string' },
      { name: 'validate', status: 'ok', startedAt: 0.399, durationMs: 1.354, detail: null },
      { name: 'permission', status: 'ok', startedAt: 1.753, durationMs: 0.274, detail: 'default for read: allow' },
      { name: 'execute', status: 'ok', startedAt: 2.055, durationMs: 0.484, detail: '1 attempt' },
      { name: 'normalize', status: 'ok', startedAt: 2.539, durationMs: 0.409, detail: null },
      { name: 'trace', status: 'ok', startedAt: 2.948, durationMs: 0.152, detail: 'finalized' },
    ];
    const bytes = encodeStages(stages);
    // The executor's times are whole microseconds: 1 + 6 flags + 1 start (the gap before execute) + 6 durations + 4 details.
    expect(bytes.length).toBeLessThanOrEqual(25);
    expect(bytes.length).toBeLessThan(stageTuplesText(stages).length / 4);
    expect(decodeStages(bytes)).toStrictEqual(stages);
  });

  it("stores a failed execute stage's detail as the call's error and what follows it", () => {
    const error = JSON.parse(callError) as ToolErrorData;
    const ended: ToolErrorData = { ...error, message: 'Service Unavailable.' };
    const stages: TraceStage[] = [
      { name: 'parse', status: 'ok', startedAt: 0, durationMs: 0.1, detail: 'JSON string' },
      { name: 'execute', status: 'failed', startedAt: 0.1, durationMs: 2, detail: 'HTTP_ERROR: HTTP 502; 1 attempt' },
    ];
    const bytes = encodeStages(stages, error);
    expect(bytes.length).toBeLessThan(encodeStages(stages, null).length - 'HTTP_ERROR: HTTP 502'.length + 4);
    expect(decodeStages(bytes, error)).toStrictEqual(stages);
    // joinDetail cuts the message's final full stop.
    const cut: TraceStage[] = [
      { ...(stages[1] as TraceStage), name: 'parse', detail: 'HTTP_ERROR: Service Unavailable; 2 attempts' },
    ];
    expect(decodeStages(encodeStages(cut, ended), ended)).toStrictEqual(cut);
    expect(encodeStages(cut, ended).length).toBeLessThanOrEqual(20);
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (message, rest) => {
        const anyError: ToolErrorData = { ...error, message };
        const any: TraceStage[] = [{ ...(stages[1] as TraceStage), detail: `HTTP_ERROR: ${message}${rest}` }];
        expect(decodeStages(encodeStages(any, anyError), anyError)).toEqual(any);
      }),
    );
  });

  it('round-trips any attempts of a call, and reads the JSON of older rows', () => {
    fc.assert(
      fc.property(
        fc.array(attempt, { maxLength: 4 }),
        fc.option(fc.constant(callError), { nil: null }),
        (attempts, error) => {
          expect(decodeAttempts(encodeAttempts(attempts, 'read_file', error), 'read_file', error)).toEqual(attempts);
          expect(decodeAttempts(JSON.stringify(attempts), 'read_file', error)).toEqual(attempts);
        },
      ),
    );
  });

  it("stores a failed attempt's error once when it is the call's", () => {
    const failed: Attempt = {
      number: 1,
      tool: 'http_request',
      fallback: false,
      startedAt: 0.5,
      durationMs: 120.25,
      outcome: 'error',
      timeoutMs: 30_000,
      error: JSON.parse(callError),
      backoffMs: null,
      fault: null,
    };
    const bytes = encodeAttempts([failed], 'http_request', callError);
    expect(bytes.length).toBeLessThanOrEqual(10);
    expect(decodeAttempts(bytes, 'http_request', callError)).toStrictEqual([failed]);
    expect(encodeAttempts([failed], 'http_request', null).length).toBeGreaterThan(callError.length);
  });

  it('stores a model message equal to the output or to the error text once, and any other message as itself', () => {
    const error = JSON.parse(callError) as ToolErrorData;
    fc.assert(
      fc.property(
        fc.option(fc.oneof(fc.string(), fc.constantFrom('\u0000', '\u0000\u0001', '\u0001')), { nil: null }),
        fc.option(fc.string(), { nil: null }),
        fc.option(fc.constant(error), { nil: null }),
        (message, output, callErrorData) => {
          expect(decodeModelMessage(encodeModelMessage(message, output, callErrorData), output, callErrorData)).toBe(
            message,
          );
        },
      ),
    );
    expect(encodeModelMessage('{"a":1}', '{"a":1}', null)).toBe('\u0000');
    const described = describeErrorForModel({ ...error, hint: 'wait' });
    expect(encodeModelMessage(described, null, { ...error, hint: 'wait' })).toBe('\u0000\u0001');
    expect(decodeModelMessage('\u0000\u0001', null, { ...error, hint: 'wait' })).toBe(described);
    expect(decodeModelMessage(encodeModelMessage('\u0000', null, null), null, null)).toBe('\u0000');
    expect(decodeModelMessage(encodeModelMessage('\u0000x', '\u0000x', null), '\u0000x', null)).toBe('\u0000x');
  });
});
