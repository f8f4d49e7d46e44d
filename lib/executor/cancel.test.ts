import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryTraceStore } from '../db/memory-trace-store';
import { createRunShellTool } from '../tools/run-shell';
import { defineTool } from './define-tool';
import { ToolError } from './errors';
import { createExecutor, type ExecutorOptions } from './executor';
import { createManualClock } from './manual-clock';
import type { ApprovalRequest } from './ports';
import { createRegistry } from './registry';
import type { AnyTool } from './types';

function setup(tools: AnyTool[], options: Partial<ExecutorOptions> = {}) {
  const store = createMemoryTraceStore();
  const clock = createManualClock();
  const executor = createExecutor({ registry: createRegistry(tools), sink: store, clock, random: () => 0, ...options });
  return { store, clock, executor };
}

/** A tool that runs until its signal fires, noting the signal's reason. */
function hanging(seen: { reason?: unknown; aborted: boolean }) {
  return defineTool({
    name: 'hang',
    description: 'waits for its signal',
    sideEffect: 'none',
    timeoutMs: 60_000,
    inputSchema: z.object({}),
    execute: (_input, ctx) =>
      new Promise((_, reject) => {
        ctx.signal.addEventListener('abort', () => {
          seen.aborted = true;
          seen.reason = ctx.signal.reason;
          reject(ctx.signal.reason);
        });
      }),
  });
}

describe('cancel', () => {
  it('cancels a running attempt: the tool signal fires, the call ends cancelled, naming who and why', async () => {
    const seen: { reason?: unknown; aborted: boolean } = { aborted: false };
    const { executor, clock, store } = setup([hanging(seen)]);
    const pending = executor.execute({ id: 'c1', name: 'hang', arguments: {} }, { traceId: 't1' });
    await clock.advance(50);
    expect(executor.inFlightIds()).toEqual(['t1']);
    const cancelled = executor.cancel('t1', { by: 'user', reason: 'took too long', details: { from: 'trace page' } });
    expect(cancelled).not.toBeNull();
    const [viaCancel, viaExecute] = await Promise.all([cancelled, pending]);
    expect(viaCancel).toEqual(viaExecute);
    expect(seen.aborted).toBe(true);
    expect(viaExecute.status).toBe('cancelled');
    expect(viaExecute.error).toMatchObject({
      code: 'CANCELLED',
      message: 'Cancelled by user: took too long.',
      stage: 'execute',
      details: { cancelledBy: 'user', reason: 'took too long', from: 'trace page' },
    });
    const trace = store.get('t1');
    expect(trace?.status).toBe('cancelled');
    expect(trace?.attempts.map((a) => [a.outcome, a.durationMs, a.timeoutMs])).toEqual([['cancelled', 50, 60_000]]);
    expect(trace?.stages.find((s) => s.name === 'execute')).toMatchObject({ status: 'failed', durationMs: 50 });
    expect(trace?.stages.find((s) => s.name === 'normalize')?.status).toBe('skipped');
    expect(executor.inFlightIds()).toEqual([]);
    expect(executor.inFlight('t1')).toBeNull();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('returns null for an unknown or finished call', async () => {
    const { executor } = setup([hanging({ aborted: false })]);
    expect(executor.cancel('nope', { by: 'user' })).toBeNull();
    const add = defineTool({
      name: 'one',
      description: 'x',
      sideEffect: 'none',
      inputSchema: z.object({}),
      execute: () => 1,
    });
    const other = setup([add]);
    const done = await other.executor.execute({ name: 'one', arguments: {} });
    expect(other.executor.cancel(done.traceId, { by: 'user' })).toBeNull();
    expect(other.executor.inFlight(done.traceId)).toBeNull();
  });

  it('cancels during backoff without another attempt', async () => {
    let calls = 0;
    const flaky = defineTool({
      name: 'flaky',
      description: 'x',
      sideEffect: 'none',
      retry: { maxAttempts: 3, baseDelayMs: 1000, jitter: 0 },
      inputSchema: z.object({}),
      execute: () => {
        calls++;
        throw ToolError.temporary('BUSY', 'busy');
      },
    });
    const { executor, clock, store } = setup([flaky]);
    const pending = executor.execute({ name: 'flaky', arguments: {} }, { traceId: 'b1' });
    await clock.advance(400);
    const live = executor.inFlight('b1');
    expect(live?.attempts.map((a) => [a.outcome, a.backoffMs])).toEqual([['error', 1000]]);
    expect(live?.stages.at(-1)).toMatchObject({ name: 'execute', status: 'running', durationMs: 0 });
    const result = await executor.cancel('b1', { by: 'api' });
    await expect(pending).resolves.toEqual(result);
    expect(calls).toBe(1);
    expect(result?.error).toMatchObject({ code: 'CANCELLED', message: 'Cancelled by api.', stage: 'execute' });
    expect(store.get('b1')?.attempts).toHaveLength(1);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('cancels during approval: the approver request signal aborts', async () => {
    let request: ApprovalRequest | null = null;
    const write = defineTool({
      name: 'write',
      description: 'x',
      sideEffect: 'write',
      inputSchema: z.object({}),
      execute: () => 'wrote',
    });
    const { executor, clock, store } = setup([write], {
      approver: {
        request: (r) => {
          request = r;
          return new Promise(() => {}); // a person who never answers
        },
      },
    });
    const pending = executor.execute({ name: 'write', arguments: {} }, { traceId: 'a1' });
    await clock.advance(10);
    expect(executor.inFlight('a1')?.status).toBe('awaiting_approval');
    expect(executor.inFlight('a1')?.stages.at(-1)).toMatchObject({ name: 'permission', status: 'waiting' });
    const result = await executor.cancel('a1', { by: 'shutdown', reason: 'the server is stopping' });
    expect((request as ApprovalRequest | null)?.signal.aborted).toBe(true);
    expect(result?.status).toBe('cancelled');
    expect(result?.error).toMatchObject({ stage: 'permission', details: { cancelledBy: 'shutdown' } });
    expect(await pending).toEqual(result);
    const trace = store.get('a1');
    expect(trace?.stages.find((s) => s.name === 'permission')).toMatchObject({ status: 'failed', durationMs: 10 });
    expect(trace?.stages.find((s) => s.name === 'execute')?.status).toBe('skipped');
    expect(trace?.attempts).toEqual([]);
  });

  it('cancelAll cancels every call in flight and waits for their records', async () => {
    const { executor, clock, store } = setup([hanging({ aborted: false })]);
    const a = executor.execute({ name: 'hang', arguments: {} }, { traceId: 'x' });
    const b = executor.execute({ name: 'hang', arguments: {} }, { traceId: 'y' });
    await clock.advance(1);
    const results = await executor.cancelAll({ by: 'shutdown' });
    expect(results.map((r) => [r.traceId, r.status])).toEqual([
      ['x', 'cancelled'],
      ['y', 'cancelled'],
    ]);
    expect(store.get('x')?.status).toBe('cancelled');
    expect((await a).status).toBe('cancelled');
    expect((await b).status).toBe('cancelled');
    expect(await executor.cancelAll({ by: 'shutdown' })).toEqual([]);
  });

  it('takes who cancelled from a caller signal aborted with a CancelReason, or says the caller', async () => {
    const { executor, clock } = setup([hanging({ aborted: false })]);
    const controller = new AbortController();
    const pending = executor.execute({ name: 'hang', arguments: {} }, { signal: controller.signal });
    await clock.advance(1);
    controller.abort({ by: 'agent', reason: 'client disconnected' });
    expect((await pending).error?.message).toBe('Cancelled by agent: client disconnected.');
    const plain = new AbortController();
    const second = executor.execute({ name: 'hang', arguments: {} }, { signal: plain.signal });
    await clock.advance(1);
    plain.abort();
    expect((await second).error).toMatchObject({ message: 'Cancelled by caller.', details: { cancelledBy: 'caller' } });
  });

  it('treats a cancelled call as neutral for the circuit breaker', async () => {
    const fragile = defineTool({
      name: 'fragile',
      description: 'x',
      sideEffect: 'none',
      retry: { maxAttempts: 1 },
      circuitBreaker: { failureThreshold: 1, cooldownMs: 1000 },
      inputSchema: z.object({ fail: z.boolean() }),
      execute: ({ fail }, ctx) =>
        fail
          ? Promise.reject(ToolError.temporary('DOWN', 'down'))
          : new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))),
    });
    const { executor, clock } = setup([fragile]);
    await executor.execute({ name: 'fragile', arguments: { fail: true } });
    expect(executor.circuitState('fragile')).toBe('open');
    await clock.advance(1000);
    expect(executor.circuitState('fragile')).toBe('half_open');
    // The half-open trial is cancelled: it proves nothing, so the breaker stays half-open...
    const trial = executor.execute({ name: 'fragile', arguments: { fail: false } }, { traceId: 'trial' });
    await clock.advance(1);
    await executor.cancel('trial', { by: 'user' });
    await trial;
    expect(executor.circuitState('fragile')).toBe('half_open');
    // ...and lets the next trial through instead of blocking for ever.
    const next = await executor.execute({ name: 'fragile', arguments: { fail: true } });
    expect(next.error?.code).toBe('DOWN');
  });
});

describe('in-flight bookkeeping', () => {
  it('never leaves a ghost in flight, even when a port fails unexpectedly', async () => {
    const tool = defineTool({
      name: 'one',
      description: 'x',
      sideEffect: 'none',
      inputSchema: z.object({}),
      execute: () => 1,
    });
    const { executor, store } = setup([tool], {
      faults: {
        faultFor: () => {
          throw new Error('fault source broke');
        },
      },
    });
    const result = await executor.execute({ name: 'one', arguments: {} });
    expect(result).toMatchObject({ status: 'failed', error: { code: 'INTERNAL_ERROR', stage: 'execute' } });
    expect(store.get(result.traceId)?.status).toBe('failed');
    expect(executor.inFlightIds()).toEqual([]);
  });
});

describe('cancel a real process', () => {
  it('kills the child process group of a running run_shell call', async () => {
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-cancel-'));
    try {
      const shell = createRunShellTool({ workspace, allow: ['sh'] });
      const store = createMemoryTraceStore();
      const executor = createExecutor({ registry: createRegistry([shell]), sink: store, policy: () => 'allow' });
      const pending = executor.execute(
        { name: 'run_shell', arguments: { command: ['sh', '-c', 'echo $$ > pid; sleep 30 & wait'] } },
        { traceId: 'shell' },
      );
      const pidFile = path.join(workspace, 'pid');
      const started = Date.now();
      while (!fs.existsSync(pidFile) || fs.readFileSync(pidFile, 'utf8').trim() === '') {
        if (Date.now() - started > 5000) throw new Error('the shell did not start');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
      expect(executor.inFlight('shell')?.attempts[0]?.outcome).toBe('running');
      const result = await executor.cancel('shell', { by: 'user', reason: 'stop it' });
      await pending;
      expect(result?.status).toBe('cancelled');
      expect(result?.error?.message).toBe('Cancelled by user: stop it.');
      expect(Date.now() - started).toBeLessThan(5000);
      // The whole group is gone: the shell and its sleeping child.
      const gone = Date.now();
      for (;;) {
        try {
          process.kill(-pid, 0);
        } catch {
          break;
        }
        if (Date.now() - gone > 2000) throw new Error(`process group ${pid} still alive`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(store.get('shell')?.attempts[0]?.outcome).toBe('cancelled');
    } finally {
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });
});
