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

describe('the ToolResult contract (property)', () => {
  it('holds for arbitrary calls, and every call records a trace with all six stages', async () => {
    const store = createMemoryTraceStore();
    const executor = createExecutor({ registry: createRegistry(tools), sink: store });
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.constantFrom('add', 'echo', 'chaos', 'writer'), fc.string()),
        argumentsArb,
        async (name, args) => {
          const result = await executor.execute({ name, arguments: args });
          expect(result.success).toBe(result.error === undefined);
          expect(result.latencyMs).toBeGreaterThanOrEqual(0);
          expect(result.metadata.traceId).toBe(result.traceId);
          if (result.error) {
            expect(typeof result.error.code).toBe('string');
            expect(typeof result.error.message).toBe('string');
            expect(typeof result.error.retryable).toBe('boolean');
          }
          const trace = store.get(result.traceId);
          expect(trace).not.toBeNull();
          expect(trace?.stages.map((s) => s.name)).toEqual([...STAGE_NAMES]);
          expect(trace?.status).toBe(result.status);
          expect(['succeeded', 'failed', 'denied']).toContain(trace?.status);
          expect(typeof trace?.modelMessage).toBe('string');
        },
      ),
      { numRuns: 400 },
    );
  });
});
