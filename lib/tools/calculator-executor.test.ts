import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryTraceStore } from '../db/memory-trace-store';
import { createExecutor } from '../executor/executor';
import { createRegistry } from '../executor/registry';
import { crowding } from '../hardening/testing/machine-pace';
import { createCalculatorTool } from './calculator';
import { createCalculatorPool } from './calculator-pool';

/** An expression that runs for tens of seconds on the event loop; here it meets the deadline. */
const SLOW = `${'gcd(1:10000)+'.repeat(76)}0`;

describe('the calculator through the executor', () => {
  const pool = createCalculatorPool();
  const store = createMemoryTraceStore();
  const executor = createExecutor({ registry: createRegistry([createCalculatorTool({ pool })]), sink: store });
  const call = (expression: string) => executor.execute({ name: 'calculator', arguments: { expression } });

  beforeAll(async () => {
    pool.warm();
    while (pool.stats().ready < 2) await new Promise((resolve) => setTimeout(resolve, 10));
  });
  afterAll(() => pool.close());

  it('answers an expensive expression within 1 s with a limit error, while other calls and timers go on', async () => {
    let ticks = 0;
    const timer = setInterval(() => {
      ticks += 1;
    }, 10);
    try {
      const started = performance.now();
      let expensiveSettled = false;
      const expensive = call(SLOW).finally(() => {
        expensiveSettled = true;
      });
      const cheap = await Promise.all(Array.from({ length: 20 }, (_, i) => call(`${i} * 2`)));
      // Answered while the expensive one still ran: they did not wait behind it.
      expect(expensiveSettled).toBe(false);
      const result = await expensive;
      const expensiveMs = performance.now() - started;

      expect(cheap.map((r) => r.output)).toEqual(
        Array.from({ length: 20 }, (_, i) => ({ expression: `${i} * 2`, result: i * 2, type: 'number' })),
      );
      expect(result.success).toBe(false);
      expect(result.error).toMatchObject({ code: 'EVALUATION_LIMIT', kind: 'limit', retryable: false });
      // Its 750 ms deadline, and the rest within 1 s on the reference machine at rest (stretched by the crowding).
      expect(expensiveMs).toBeLessThan(1_000 * crowding());
      expect(store.get(result.metadata.traceId)?.status).toBe('failed');
    } finally {
      clearInterval(timer);
    }
    // About 75 at rest; a loop blocked by the evaluation would tick once at most.
    expect(ticks).toBeGreaterThanOrEqual(5);
  });

  it('terminates the evaluation when the call is cancelled', async () => {
    const before = pool.stats().started;
    const running = executor.execute({ name: 'calculator', arguments: { expression: SLOW } }, { traceId: 'slow' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    const started = performance.now();
    const result = await executor.cancel('slow', { by: 'test', reason: 'no longer needed' });
    expect(performance.now() - started).toBeLessThan(200 * crowding());
    expect(await running).toEqual(result);
    expect(result?.error?.code).toBe('CANCELLED');
    expect(pool.stats().started).toBe(before + 1);
  });
});
