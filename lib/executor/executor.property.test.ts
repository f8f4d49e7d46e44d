import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryTraceStore } from '../db/memory-trace-store';
import { defineTool } from './define-tool';
import { ToolError } from './errors';
import { createExecutor } from './executor';
import { processOutput } from './process-output';
import { createRegistry } from './registry';
import { STAGE_NAMES } from './types';

const tools = [
  defineTool({
    name: 'add',
    description: 'x',
    sideEffect: 'none',
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    execute: ({ a, b }) => a + b,
  }),
  defineTool({
    name: 'echo',
    description: 'x',
    sideEffect: 'read',
    inputSchema: z.object({ text: z.string(), exit: z.number().int().optional() }),
    execute: ({ text, exit }) => processOutput({ stdout: text, stderr: 'e', exitCode: exit ?? 0 }),
  }),
  defineTool({
    name: 'chaos',
    description: 'x',
    sideEffect: 'none',
    retry: { maxAttempts: 2, baseDelayMs: 0, jitter: 0 },
    inputSchema: z.object({ mode: z.number() }),
    execute: ({ mode }) => {
      if (mode % 3 === 0) throw ToolError.temporary('FLAKY', 'flaky');
      if (mode % 3 === 1) throw new Error('boom');
      return { mode };
    },
  }),
  defineTool({
    name: 'writer',
    description: 'x',
    sideEffect: 'write',
    inputSchema: z.object({}).passthrough(),
    execute: () => 'wrote',
  }),
];

const argumentsArb = fc.oneof(
  fc.string(),
  fc.json(),
  fc.constantFrom(
    '{',
    '{"a":1,"b":2}',
    '{"text":"hi","exit":3}',
    '{"mode":3}',
    '{"mode":4}',
    '{"mode":5}',
    'null',
    '[]',
  ),
  fc.anything(),
  fc.dictionary(fc.string(), fc.jsonValue()),
);

const cancelArb = fc.option(
  fc.oneof(
    fc.record({ by: fc.string({ minLength: 1 }), reason: fc.option(fc.string(), { nil: undefined }) }),
    fc.anything(),
  ),
  { nil: undefined, freq: 4 },
);

describe('the ToolResult contract (property)', () => {
  it('holds for arbitrary calls, and every call records a trace with all six stages', async () => {
    const store = createMemoryTraceStore();
    const executor = createExecutor({ registry: createRegistry(tools), sink: store });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.constantFrom('add', 'echo', 'chaos', 'writer'), fc.string()),
        argumentsArb,
        cancelArb,
        async (name, args, cancel) => {
          // Sometimes the caller has already given up (its signal aborted with any reason at all).
          const signal = cancel === undefined ? undefined : AbortSignal.abort(cancel);
          const result = await executor.execute({ name, arguments: args }, { signal });
          expect(result.success).toBe(result.error === undefined);
          expect(result.latencyMs).toBeGreaterThanOrEqual(0);
          expect(result.metadata.traceId).toBe(result.traceId);
          if (result.error) {
            expect(typeof result.error.code).toBe('string');
            expect(typeof result.error.message).toBe('string');
            expect(typeof result.error.retryable).toBe('boolean');
          }
          expect(result.status === 'cancelled').toBe(result.error?.code === 'CANCELLED');
          if (signal) expect(result.status).toBe('cancelled');
          const trace = store.get(result.traceId);
          expect(trace).not.toBeNull();
          expect(trace?.stages.map((s) => s.name)).toEqual([...STAGE_NAMES]);
          expect(trace?.status).toBe(result.status);
          expect(['succeeded', 'failed', 'denied', 'cancelled']).toContain(trace?.status);
          expect(typeof trace?.modelMessage).toBe('string');
          // A finished call shows nothing as still running or waiting.
          expect(trace?.stages.every((s) => s.status !== 'running' && s.status !== 'waiting')).toBe(true);
          expect(trace?.attempts.every((a) => a.outcome !== 'running')).toBe(true);
          // An error names the stage that failed, never one that was skipped.
          if (result.error?.stage) {
            expect(trace?.stages.find((s) => s.name === result.error?.stage)?.status).toBe('failed');
          }
          expect(executor.inFlightIds()).toEqual([]);
        },
      ),
      { numRuns: 400 },
    );
  });
});
