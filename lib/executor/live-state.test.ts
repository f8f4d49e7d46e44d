import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryTraceStore } from '../db/memory-trace-store';
import { defineTool } from './define-tool';
import { ToolError } from './errors';
import { createExecutor, type ExecutorOptions } from './executor';
import { createManualClock } from './manual-clock';
import { processOutput } from './process-output';
import { REDACTED } from './redact';
import { createRegistry } from './registry';
import type { AnyTool, ToolContext, TraceRecord, TraceSink } from './types';

function setup(tools: AnyTool[], options: Partial<ExecutorOptions> = {}) {
  const store = createMemoryTraceStore();
  const clock = createManualClock();
  const executor = createExecutor({ registry: createRegistry(tools), sink: store, clock, random: () => 0, ...options });
  return { store, clock, executor };
}

const wait = (ctx: ToolContext, ms: number) => new Promise<void>((resolve) => ctx.clock.setTimeout(resolve, ms));

/** Prints, waits, prints again, then exits 0: a process seen while it runs. */
const printer = defineTool({
  name: 'printer',
  description: 'prints slowly',
  sideEffect: 'none',
  timeoutMs: 5000,
  inputSchema: z.object({ password: z.string() }),
  execute: async ({ password }, ctx) => {
    ctx.output.write('stdout', 'line 1\n');
    ctx.output.write('stderr', `using ${password}\n`);
    await wait(ctx, 100);
    ctx.output.write('stdout', 'line 2\n');
    await wait(ctx, 100);
    return processOutput({ stdout: 'line 1\nline 2\ndone\n', stderr: `using ${password}\n`, exitCode: 0 });
  },
});

describe('a call in flight', () => {
  it('shows the running stage, the running attempt with its timeout, and its output so far, scrubbed', async () => {
    const { executor, clock, store } = setup([printer]);
    const pending = executor.execute({ name: 'printer', arguments: { password: 'hunter22' } }, { traceId: 'p' });
    await clock.advance(50);
    const live = executor.inFlight('p') as TraceRecord;
    expect(live.status).toBe('running');
    expect(live.stages.map((s) => [s.name, s.status])).toEqual([
      ['parse', 'ok'],
      ['validate', 'ok'],
      ['permission', 'ok'],
      ['execute', 'running'],
    ]);
    expect(live.stages[3]).toMatchObject({ durationMs: 0, startedAt: 0 });
    expect(live.attempts).toEqual([
      {
        number: 1,
        tool: 'printer',
        fallback: false,
        startedAt: 0,
        durationMs: 0,
        outcome: 'running',
        timeoutMs: 5000,
        error: null,
        backoffMs: null,
        fault: null,
      },
    ]);
    expect(live.stdout).toBe('line 1\n');
    expect(live.stderr).toBe(`using ${REDACTED}\n`);
    // A snapshot is a copy: the call going on does not change it.
    await clock.advance(100);
    expect(live.stdout).toBe('line 1\n');
    expect(executor.inFlight('p')?.stdout).toBe('line 1\nline 2\n');
    await clock.advance(100);
    await pending;
    const trace = store.get('p');
    expect(trace?.stdout).toBe('line 1\nline 2\ndone\n');
    expect(trace?.attempts[0]).toMatchObject({ outcome: 'ok', durationMs: 200, timeoutMs: 5000 });
    expect(trace?.stages.map((s) => s.status)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'ok']);
    expect(trace?.stderr).toBe(`using ${REDACTED}\n`);
  });

  it('starts each attempt with empty output, and keeps a timed-out attempt’s output in the trace', async () => {
    let attempt = 0;
    const tool = defineTool({
      name: 'chatty',
      description: 'x',
      sideEffect: 'none',
      timeoutMs: 300,
      retry: { maxAttempts: 2, baseDelayMs: 10, jitter: 0 },
      inputSchema: z.object({}),
      execute: async (_input, ctx) => {
        attempt++;
        ctx.output.write('stdout', `attempt ${attempt}\n`);
        if (attempt === 1) throw ToolError.temporary('BUSY', 'busy');
        return new Promise(() => {}); // hangs until the deadline
      },
    });
    const { executor, clock, store } = setup([tool]);
    const pending = executor.execute({ name: 'chatty', arguments: {} }, { traceId: 'c' });
    await clock.advance(5);
    expect(executor.inFlight('c')?.stdout).toBe('attempt 1\n');
    await clock.advance(10);
    const live = executor.inFlight('c');
    expect(live?.stdout).toBe('attempt 2\n');
    expect(live?.attempts.map((a) => [a.outcome, a.backoffMs, a.timeoutMs])).toEqual([
      ['error', 10, 300],
      ['running', null, 300],
    ]);
    await clock.advance(300);
    const result = await pending;
    expect(result.error?.code).toBe('TIMEOUT');
    expect(store.get('c')?.stdout).toBe('attempt 2\n');
    expect(store.get('c')?.attempts.map((a) => a.outcome)).toEqual(['error', 'timeout']);
  });

  it('keeps the head of a stream over the cap and says how much was dropped', async () => {
    const tool = defineTool({
      name: 'flood',
      description: 'x',
      sideEffect: 'none',
      inputSchema: z.object({}),
      execute: async (_input, ctx) => {
        ctx.output.write('stdout', 'abcdef');
        ctx.output.write('stdout', 'ghijklmnop');
        ctx.output.write('stdout', 'qrstuvwxyz');
        return new Promise(() => {});
      },
    });
    const { executor, clock } = setup([tool], { limits: { maxTraceBytes: 10 } });
    void executor.execute({ name: 'flood', arguments: {} }, { traceId: 'f' });
    await clock.advance(1);
    const stdout = executor.inFlight('f')?.stdout ?? '';
    expect(stdout.startsWith('abcdefghij\n…[16 more characters not kept')).toBe(true);
    expect(executor.inFlight('f')?.stderr).toBeNull();
    await executor.cancel('f', { by: 'test' });
  });

  it('ignores output written after the attempt ended', async () => {
    let late: ToolContext | null = null;
    const tool = defineTool({
      name: 'late',
      description: 'x',
      sideEffect: 'none',
      inputSchema: z.object({}),
      execute: (_input, ctx) => {
        late = ctx;
        return 'ok';
      },
    });
    const { executor, store } = setup([tool]);
    const result = await executor.execute({ name: 'late', arguments: {} });
    (late as ToolContext | null)?.output.write('stdout', 'too late');
    expect(store.get(result.traceId)?.stdout).toBeNull();
  });
});

describe('progress', () => {
  function progressSink() {
    const store = createMemoryTraceStore();
    const published: { at: number; record: TraceRecord }[] = [];
    let now = () => 0;
    const sink: TraceSink = {
      begin: (r) => store.begin(r),
      update: (r) => store.update(r),
      finish: (r) => store.finish(r),
      progress: (r) => {
        published.push({ at: now(), record: r });
      },
    };
    return { sink, published, setNow: (fn: () => number) => (now = fn) };
  }

  it('publishes at most every 100 ms, always the last change, and leaves no timer behind', async () => {
    const writes: [number, string][] = [
      [0, 'a'],
      [50, 'b'],
      [150, 'c'],
      [170, 'd'],
      [230, 'e'],
    ];
    const tool = defineTool({
      name: 'stream',
      description: 'x',
      sideEffect: 'none',
      inputSchema: z.object({}),
      execute: async (_input, ctx) => {
        let at = 0;
        for (const [when, text] of writes) {
          await wait(ctx, when - at);
          at = when;
          ctx.output.write('stdout', text);
        }
        await wait(ctx, 400 - at);
        return 'done';
      },
    });
    const { sink, published, setNow } = progressSink();
    const clock = createManualClock();
    setNow(() => clock.now());
    const executor = createExecutor({ registry: createRegistry([tool]), sink, clock });
    const pending = executor.execute({ name: 'stream', arguments: {} });
    for (let i = 0; i < 10; i++) await clock.advance(50);
    const result = await pending;
    expect(result.success).toBe(true);
    expect(published.map((p) => [p.at, p.record.stdout, p.record.attempts[0]?.outcome])).toEqual([
      [100, 'ab', 'running'],
      [200, 'abcd', 'running'],
      [300, 'abcde', 'running'],
      [400, 'abcde', 'ok'],
    ]);
    // Each publication is a copy, never the live record.
    expect(published[0]?.record.stages.at(-1)).toMatchObject({ name: 'execute', status: 'running' });
    expect(clock.pendingTimers()).toBe(0);
  });

  it('publishes nothing for a call that ends within the first interval, and nothing before begin', async () => {
    const tool = defineTool({
      name: 'quick',
      description: 'x',
      sideEffect: 'none',
      inputSchema: z.object({}),
      execute: async (_input, ctx) => {
        ctx.output.write('stdout', 'hi');
        await wait(ctx, 30);
        return 'ok';
      },
    });
    const { sink, published } = progressSink();
    const clock = createManualClock();
    const executor = createExecutor({ registry: createRegistry([tool]), sink, clock });
    const pending = executor.execute({ name: 'quick', arguments: {} });
    await clock.advance(30);
    await pending;
    expect(published).toEqual([]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('publishes when a backoff starts', async () => {
    let calls = 0;
    const tool = defineTool({
      name: 'retry',
      description: 'x',
      sideEffect: 'none',
      retry: { maxAttempts: 2, baseDelayMs: 1000, jitter: 0 },
      inputSchema: z.object({}),
      execute: async (_input, ctx) => {
        calls++;
        await wait(ctx, 200);
        if (calls === 1) throw ToolError.temporary('BUSY', 'busy');
        return 'ok';
      },
    });
    const { sink, published, setNow } = progressSink();
    const clock = createManualClock();
    setNow(() => clock.now());
    const executor = createExecutor({ registry: createRegistry([tool]), sink, clock, random: () => 0 });
    const pending = executor.execute({ name: 'retry', arguments: {} });
    await clock.advance(200);
    const backoff = published.at(-1);
    expect(backoff?.at).toBe(200);
    expect(backoff?.record.attempts.map((a) => [a.outcome, a.backoffMs])).toEqual([['error', 1000]]);
    await clock.advance(1200);
    await pending;
    expect(clock.pendingTimers()).toBe(0);
  });

  it('survives a progress listener that throws', async () => {
    const tool = defineTool({
      name: 'talk',
      description: 'x',
      sideEffect: 'none',
      inputSchema: z.object({}),
      execute: async (_input, ctx) => {
        await wait(ctx, 150);
        ctx.output.write('stdout', 'still here');
        return 'ok';
      },
    });
    const store = createMemoryTraceStore();
    const clock = createManualClock();
    const sink: TraceSink = {
      begin: (r) => store.begin(r),
      update: (r) => store.update(r),
      finish: (r) => store.finish(r),
      progress: () => {
        throw new Error('listener broke');
      },
    };
    const executor = createExecutor({ registry: createRegistry([tool]), sink, clock });
    const original = console.error;
    const logged: unknown[] = [];
    console.error = (...args: unknown[]) => logged.push(args[0]);
    try {
      const pending = executor.execute({ name: 'talk', arguments: {} });
      await clock.advance(150);
      const result = await pending;
      expect(result.success).toBe(true);
      expect(logged.some((l) => String(l).includes('progress listener failed'))).toBe(true);
    } finally {
      console.error = original;
    }
  });
});
