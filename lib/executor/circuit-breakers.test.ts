import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryTraceStore } from '../db/memory-trace-store';
import { defineTool } from './define-tool';
import { ToolError } from './errors';
import { createExecutor } from './executor';
import { createManualClock } from './manual-clock';
import { createRegistry } from './registry';

const START = Date.UTC(2026, 0, 1);

/**
 * A tool keyed by its `host` argument, failing (temporarily) for the hosts in `down`; and one
 * without a key. Breakers open after 2 failures in a row, for 10 s.
 */
function setup() {
  const down = new Set<string>(['a:1']);
  const keyed = defineTool({
    name: 'keyed',
    description: 'x',
    sideEffect: 'none',
    retry: { maxAttempts: 1 },
    circuitBreaker: { failureThreshold: 2, cooldownMs: 10_000 },
    circuitKey: ({ host }) => host,
    inputSchema: z.object({ host: z.string() }),
    execute: ({ host }) => {
      if (down.has(host)) throw ToolError.temporary('DOWN', `${host} is down`);
      return { host };
    },
  });
  const single = defineTool({
    name: 'single',
    description: 'x',
    sideEffect: 'none',
    retry: { maxAttempts: 1 },
    circuitBreaker: { failureThreshold: 2, cooldownMs: 10_000 },
    inputSchema: z.object({ host: z.string() }),
    execute: ({ host }) => {
      if (down.has(host)) throw ToolError.temporary('DOWN', `${host} is down`);
      return { host };
    },
  });
  const clock = createManualClock(START);
  const executor = createExecutor({
    registry: createRegistry([keyed, single]),
    sink: createMemoryTraceStore(),
    clock,
    random: () => 0,
  });
  const call = (name: string, host: string) => executor.execute({ name, arguments: { host } });
  return { executor, clock, down, call };
}

describe('circuit breakers per (tool, key)', () => {
  it("a failing key opens its own breaker only: another key's calls still run", async () => {
    const { executor, call } = setup();
    const first = await call('keyed', 'a:1');
    const second = await call('keyed', 'a:1');
    expect(executor.circuitState('keyed')).toBe('open');

    const blocked = await call('keyed', 'a:1');
    expect(blocked.error?.code).toBe('CIRCUIT_OPEN');
    expect(blocked.metadata.attempts).toBe(0);
    expect(blocked.error?.message).toContain('keyed to a:1 is paused');
    expect(blocked.error?.message).toContain(`at ${new Date(START + 10_000).toISOString()} (in 10 s)`);
    expect(blocked.error?.details).toMatchObject({
      key: 'a:1',
      retryInMs: 10_000,
      failures: [first.traceId, second.traceId],
    });

    const other = await call('keyed', 'b:2');
    expect(other.success).toBe(true);
    expect(executor.circuits('keyed')).toEqual([
      {
        key: 'a:1',
        state: 'open',
        openedAt: START,
        retryAt: START + 10_000,
        failures: [first.traceId, second.traceId],
        policy: { failureThreshold: 2, cooldownMs: 10_000 },
      },
    ]);
  });

  it('a tool without a key keeps one breaker: any failing argument opens it for all', async () => {
    const { executor, call } = setup();
    await call('single', 'a:1');
    await call('single', 'a:1');
    const other = await call('single', 'b:2');
    expect(other.error?.code).toBe('CIRCUIT_OPEN');
    expect(other.error?.message).toMatch(/^single is paused/);
    expect(executor.circuits('single').map((c) => c.key)).toEqual([null]);
  });

  it('half-opens after the cooldown; a failed trial opens it again, with the trial among the failures', async () => {
    const { executor, clock, down, call } = setup();
    await call('keyed', 'a:1');
    const second = await call('keyed', 'a:1');
    await clock.advance(10_000);
    expect(executor.circuits('keyed')[0]).toMatchObject({ state: 'half_open', retryAt: START + 10_000 });
    const trial = await call('keyed', 'a:1');
    expect(trial.error?.code).toBe('DOWN');
    expect(executor.circuits('keyed')[0]).toMatchObject({
      state: 'open',
      openedAt: START + 10_000,
      retryAt: START + 20_000,
      failures: [second.traceId, trial.traceId],
    });
    await clock.advance(10_000);
    down.clear();
    expect((await call('keyed', 'a:1')).success).toBe(true);
    expect(executor.circuits('keyed')).toEqual([]);
    expect(executor.circuitState('keyed')).toBe('closed');
  });

  it('reset closes one key or all of them, says which were open, and the next call runs', async () => {
    const { executor, down, call } = setup();
    down.add('b:2');
    for (const host of ['a:1', 'a:1', 'b:2', 'b:2']) await call('keyed', host);
    expect(
      executor
        .circuits('keyed')
        .map((c) => c.key)
        .sort(),
    ).toEqual(['a:1', 'b:2']);

    expect(executor.resetCircuits('keyed', 'a:1')).toEqual(['a:1']);
    expect(executor.circuits('keyed').map((c) => c.key)).toEqual(['b:2']);
    expect(executor.resetCircuits('keyed', 'nowhere:9')).toEqual([]);
    down.delete('a:1');
    expect((await call('keyed', 'a:1')).success).toBe(true);

    expect(executor.resetCircuits('keyed')).toEqual(['b:2']);
    expect(executor.circuitState('keyed')).toBe('closed');
    expect(executor.resetCircuits('keyed')).toEqual([]);
    expect(executor.resetCircuits('unknown')).toEqual([]);
  });

  it('a reset forgets failures below the threshold too', async () => {
    const { executor, call } = setup();
    await call('keyed', 'a:1');
    executor.resetCircuits('keyed');
    await call('keyed', 'a:1');
    expect(executor.circuitState('keyed')).toBe('closed');
  });
});
