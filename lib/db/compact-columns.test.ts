import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Attempt, TraceStage } from '../executor/types';
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
      timeoutMs: fc.integer({ min: 1, max: 60_000 }),
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

describe('compact columns', () => {
  it('round-trips any stages, and reads the JSON objects of older rows', () => {
    fc.assert(
      fc.property(fc.array(stage, { maxLength: 8 }), (stages) => {
        expect(decodeStages(encodeStages(stages))).toEqual(stages);
        expect(() => JSON.parse(encodeStages(stages))).not.toThrow();
        expect(decodeStages(JSON.stringify(stages))).toEqual(stages);
      }),
    );
  });

  it('writes exactly the JSON of the stage tuples', () => {
    const stages: TraceStage[] = [
      { name: 'parse', status: 'ok', startedAt: 0, durationMs: 0.1, detail: 'JSON string' },
      { name: 'validate', status: 'failed', startedAt: -0, durationMs: 1e21, detail: 'quote " and \\ and \u2028' },
      { name: 'trace', status: 'ok', startedAt: 1.5, durationMs: 2, detail: null },
      { name: 'normalize', status: 'skipped', startedAt: 3, durationMs: Number.NaN, detail: null },
    ];
    expect(encodeStages(stages)).toBe(
      JSON.stringify([
        [0, 0.1, 0],
        [0, 1e21, 'quote " and \\ and \u2028', 'failed'],
        ['trace', 1.5, 2],
        ['normalize', 3, null, null, 'skipped'],
      ]),
    );
  });

  it('writes the usual six stages in under a third of the bytes of their JSON objects', () => {
    const stages: TraceStage[] = [
      { name: 'parse', status: 'ok', startedAt: 0, durationMs: 0.399, detail: 'JSON string' },
      { name: 'validate', status: 'ok', startedAt: 0.399, durationMs: 1.354, detail: null },
      { name: 'permission', status: 'ok', startedAt: 1.753, durationMs: 0.274, detail: 'default for read: allow' },
      { name: 'execute', status: 'ok', startedAt: 2.055, durationMs: 0.484, detail: '1 attempt' },
      { name: 'normalize', status: 'ok', startedAt: 2.539, durationMs: 0.409, detail: null },
      { name: 'trace', status: 'ok', startedAt: 2.949, durationMs: 0.152, detail: 'finalized' },
    ];
    expect(encodeStages(stages).length).toBeLessThan(JSON.stringify(stages).length / 3);
  });

  it('round-trips any attempts of a call, and reads the JSON objects of older rows', () => {
    fc.assert(
      fc.property(fc.array(attempt, { maxLength: 4 }), (attempts) => {
        expect(decodeAttempts(encodeAttempts(attempts, 'read_file'), 'read_file')).toEqual(attempts);
        expect(decodeAttempts(JSON.stringify(attempts), 'read_file')).toEqual(attempts);
      }),
    );
  });

  it('stores a model message equal to the output once, and any other message as itself', () => {
    fc.assert(
      fc.property(fc.option(fc.string(), { nil: null }), fc.option(fc.string(), { nil: null }), (message, output) => {
        expect(decodeModelMessage(encodeModelMessage(message, output), output)).toBe(message);
      }),
    );
    expect(encodeModelMessage('{"a":1}', '{"a":1}')).toBe('\u0000');
    expect(decodeModelMessage(encodeModelMessage('\u0000', null), null)).toBe('\u0000');
    expect(decodeModelMessage(encodeModelMessage('\u0000x', '\u0000x'), '\u0000x')).toBe('\u0000x');
  });
});
