import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryTraceStore } from '../db/memory-trace-store';
import { defineTool } from './define-tool';
import { ToolError } from './errors';
import { createExecutor } from './executor';
import { createManualClock } from './manual-clock';
import { createRegistry } from './registry';
import type { ToolContext, ToolResult } from './types';

const wait = (ctx: ToolContext, ms: number) =>
  new Promise<void>((resolve, reject) => {
    const timer = ctx.clock.setTimeout(resolve, ms);
    ctx.signal.addEventListener('abort', () => {
      ctx.clock.clearTimeout(timer);
      reject(ctx.signal.reason);
    });
  });

const slow = defineTool({
  name: 'slow',
  description: 'waits, and fails its odd attempts',
  sideEffect: 'none',
  timeoutMs: 120,
  retry: { maxAttempts: 3, baseDelayMs: 40, jitter: 0 },
  circuitBreaker: { failureThreshold: 3, cooldownMs: 200 },
  inputSchema: z.object({ ms: z.number() }),
  execute: async ({ ms }, ctx) => {
    await wait(ctx, ms);
    if (ctx.attempt % 2 === 1 && ms % 2 === 1) throw ToolError.temporary('BUSY', 'busy');
    ctx.output.write('stdout', `slept ${ms}`);
    return { ms };
  },
});

const guarded = defineTool({
  name: 'guarded',
  description: 'needs approval',
  sideEffect: 'write',
  inputSchema: z.object({ ms: z.number() }),
  execute: ({ ms }) => ({ ms }),
});

describe('cancellation (property)', () => {
  it('leaves every call finished, recorded and consistent, whenever it is cancelled', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            tool: fc.constantFrom('slow', 'guarded'),
            ms: fc.integer({ min: 1, max: 200 }),
            cancelAt: fc.option(fc.integer({ min: 0, max: 400 }), { nil: undefined }),
          }),
          { minLength: 1, maxLength: 6 },
        ),
        async (plan) => {
          const clock = createManualClock();
          const store = createMemoryTraceStore();
          const executor = createExecutor({
            registry: createRegistry([slow, guarded]),
            sink: store,
            clock,
            random: () => 0,
            approver: {
              // A person who answers after a while, unless the call is cancelled first.
              request: (request) =>
                new Promise((resolve) => {
                  const timer = clock.setTimeout(() => resolve({ approved: true }), 90);
                  request.signal.addEventListener('abort', () => clock.clearTimeout(timer));
                }),
            },
          });
          const pending = plan.map((step, i) =>
            executor.execute({ name: step.tool, arguments: { ms: step.ms } }, { traceId: `t${i}` }),
          );
          const cancelled = new Set<string>();
          for (let now = 0; now <= 1500; now += 10) {
            for (const [i, step] of plan.entries()) {
              if (step.cancelAt !== undefined && step.cancelAt <= now && !cancelled.has(`t${i}`)) {
                cancelled.add(`t${i}`);
                void executor.cancel(`t${i}`, { by: 'property', reason: `at ${now}` });
              }
            }
            await clock.advance(10);
          }
          const results: ToolResult[] = await Promise.all(pending);
          expect(executor.inFlightIds()).toEqual([]);
          expect(clock.pendingTimers()).toBe(0);
          for (const result of results) {
            expect(result.success).toBe(result.error === undefined);
            const trace = store.get(result.traceId);
            expect(trace?.status).toBe(result.status);
            expect(trace?.stages.every((s) => s.status !== 'running' && s.status !== 'waiting')).toBe(true);
            expect(trace?.attempts.every((a) => a.outcome !== 'running' && a.timeoutMs !== undefined)).toBe(true);
            if (result.status === 'cancelled') {
              expect(cancelled.has(result.traceId)).toBe(true);
              expect(result.error).toMatchObject({ code: 'CANCELLED', details: { cancelledBy: 'property' } });
              expect(['permission', 'execute']).toContain(result.error?.stage);
              expect(trace?.stages.find((s) => s.name === result.error?.stage)?.status).toBe('failed');
              const last = trace?.attempts.at(-1);
              if (result.error?.stage === 'execute' && last && last.backoffMs === null) {
                expect(last.outcome).toBe('cancelled');
              }
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});
