import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryTraceStore } from '../db/memory-trace-store';
import { defineTool } from './define-tool';
import { ToolError } from './errors';
import { createExecutor, type ExecutorOptions } from './executor';
import { createManualClock } from './manual-clock';
import type { Approver, PolicyRequest, PolicyResolver } from './ports';
import { processOutput } from './process-output';
import { REDACTED } from './redact';
import { createRegistry } from './registry';
import { type AnyTool, STAGE_NAMES, type TraceSink } from './types';

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers',
  sideEffect: 'none',
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => ({ sum: a + b }),
});

/** A tool that returns `value` whatever it is asked. */
function returning(name: string, value: unknown) {
  return defineTool<Record<string, never>, unknown>({
    name,
    description: 'returns a fixed value',
    sideEffect: 'none',
    inputSchema: z.object({}).strict() as z.ZodType<Record<string, never>>,
    execute: () => value,
  });
}

function setup(tools: AnyTool[], options: Partial<ExecutorOptions> = {}) {
  const store = createMemoryTraceStore();
  const clock = createManualClock();
  const executor = createExecutor({
    registry: createRegistry(tools),
    sink: store,
    clock,
    random: () => 0,
    ...options,
  });
  return { store, clock, executor };
}

function stageMap(stages: { name: string; status: string }[]) {
  return Object.fromEntries(stages.map((s) => [s.name, s.status]));
}

describe('parse', () => {
  it('accepts a JSON string, an object and an empty string', async () => {
    const { executor } = setup([add]);
    const a = await executor.execute({ name: 'add', arguments: '{"a":1,"b":2}' });
    const b = await executor.execute({ name: 'add', arguments: { a: 1, b: 2 } });
    expect(a.output).toEqual({ sum: 3 });
    expect(b.output).toEqual({ sum: 3 });
    const noArgs = defineTool({
      name: 'now',
      description: 'x',
      sideEffect: 'none',
      inputSchema: z.object({}),
      execute: () => 'ok',
    });
    const { executor: e2 } = setup([noArgs]);
    expect((await e2.execute({ name: 'now', arguments: '' })).success).toBe(true);
  });

  it('turns malformed JSON into INVALID_ARGUMENTS at the parse stage, with every stage recorded', async () => {
    const { executor, store } = setup([add]);
    const result = await executor.execute({ id: 'call_1', name: 'add', arguments: '{"a":1,' });
    expect(result.success).toBe(false);
    expect(result.error).toMatchObject({ code: 'INVALID_ARGUMENTS', retryable: false, stage: 'parse' });
    const trace = store.get(result.traceId);
    expect(trace?.stages.map((s) => s.name)).toEqual([...STAGE_NAMES]);
    expect(stageMap(trace?.stages ?? [])).toEqual({
      parse: 'failed',
      validate: 'skipped',
      permission: 'skipped',
      execute: 'skipped',
      normalize: 'skipped',
      trace: 'ok',
    });
    expect(trace?.arguments).toBe('{"a":1,');
    expect(trace?.status).toBe('failed');
  });
});

describe('validate', () => {
  it('names the available tools for an unknown tool', async () => {
    const { executor } = setup([add]);
    const result = await executor.execute({ name: 'sub', arguments: '{}' });
    expect(result.error?.code).toBe('UNKNOWN_TOOL');
    expect(result.error?.hint).toContain('add');
    expect(result.status).toBe('failed');
  });

  it('reports zod issues per field', async () => {
    const { executor, store } = setup([add]);
    const result = await executor.execute({ name: 'add', arguments: { a: 'x' } });
    expect(result.error?.code).toBe('INVALID_ARGUMENTS');
    const issues = result.error?.details?.issues as { path: string; message: string }[];
    expect(issues.map((i) => i.path).sort()).toEqual(['a', 'b']);
    expect(result.error?.message).toMatch(/a: .*; b: /);
    expect(stageMap(store.get(result.traceId)?.stages ?? []).validate).toBe('failed');
  });
});

describe('permission', () => {
  const write = defineTool({
    name: 'write',
    description: 'writes',
    sideEffect: 'write',
    inputSchema: z.object({ text: z.string() }),
    execute: ({ text }) => ({ wrote: text }),
  });

  it('asks for write tools and, without an approver, denies saying approval is required', async () => {
    let ran = false;
    const tool = {
      ...write,
      execute: () => {
        ran = true;
        return {};
      },
    };
    const { executor, store } = setup([tool]);
    const result = await executor.execute({ name: 'write', arguments: { text: 'hi' } });
    expect(ran).toBe(false);
    expect(result.status).toBe('denied');
    expect(result.error?.code).toBe('PERMISSION_DENIED');
    expect(result.error?.message).toMatch(/approval is required/i);
    expect(stageMap(store.get(result.traceId)?.stages ?? []).permission).toBe('failed');
  });

  it('gives traces time-ordered UUIDv7 ids, so each new trace lands at the end of the id index', async () => {
    const { executor } = setup([add]);
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) ids.push((await executor.execute({ name: 'add', arguments: { a: 1, b: i } })).traceId);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect([...ids].sort()).toEqual(ids);
  });

  it('honours deny and allow policies', async () => {
    const denied = setup([add], { policy: () => 'deny' });
    expect((await denied.executor.execute({ name: 'add', arguments: { a: 1, b: 1 } })).error?.code).toBe(
      'PERMISSION_DENIED',
    );
    const allowed = setup([write], { policy: () => 'allow' });
    expect((await allowed.executor.execute({ name: 'write', arguments: { text: 'x' } })).success).toBe(true);
  });

  it('gives the policy the tool, the validated input, the side effect, the actor and the session; the stage names the rule', async () => {
    const seen: PolicyRequest[] = [];
    const policy: PolicyResolver = (request) => {
      seen.push(request);
      return request.input && (request.input as { text: string }).text === 'rm'
        ? { policy: 'deny', rule: 'deny write(rm)' }
        : { policy: 'allow', rule: 'allow write(*)' };
    };
    const { executor, store } = setup([write], { policy });
    const principal = { id: 'key_a', name: 'agent-a', role: 'agent' };
    const ok = await executor.execute(
      { name: 'write', arguments: { text: 'x' } },
      { actor: 'agent', sessionId: 's1', principal },
    );
    expect(seen[0]).toEqual({
      tool: 'write',
      input: { text: 'x' },
      sideEffect: 'write',
      actor: 'agent',
      sessionId: 's1',
      principal,
    });
    expect(store.get(ok.traceId)?.principal).toEqual(principal);
    expect(store.get(ok.traceId)?.stages.find((s) => s.name === 'permission')?.detail).toBe('allow write(*)');
    const refused = await executor.execute({ name: 'write', arguments: { text: 'rm' } });
    expect(refused.error).toMatchObject({ code: 'PERMISSION_DENIED', details: { rule: 'deny write(rm)' } });
    expect(store.get(refused.traceId)?.stages.find((s) => s.name === 'permission')).toMatchObject({
      status: 'failed',
      detail: 'deny write(rm)',
    });
  });

  it('records awaiting_approval while the approver decides, then runs edited arguments', async () => {
    const statuses: string[] = [];
    const store = createMemoryTraceStore();
    const sink: TraceSink = {
      begin: (r) => store.begin(r),
      update: (r) => {
        statuses.push(`${r.status}:${r.stages.at(-1)?.status}`);
        store.update(r);
      },
      finish: (r) => store.finish(r),
    };
    const approver: Approver = { request: async () => ({ approved: true, input: { text: 'edited' }, by: 'alice' }) };
    const executor = createExecutor({ registry: createRegistry([write]), sink, approver });
    const result = await executor.execute({ name: 'write', arguments: { text: 'original' } });
    // The decision is written before the tool runs, the permission stage still open.
    expect(statuses).toEqual(['awaiting_approval:waiting', 'running:waiting']);
    expect(result.output).toEqual({ wrote: 'edited' });
    expect(store.get(result.traceId)?.stages.find((s) => s.name === 'permission')?.detail).toBe(
      'approved by alice with edited arguments (default for write: ask)',
    );
  });

  it('rejects edited arguments that do not validate, and reports approval timeouts', async () => {
    const bad = setup([write], { approver: { request: async () => ({ approved: true, input: { text: 3 } }) } });
    expect((await bad.executor.execute({ name: 'write', arguments: { text: 'x' } })).error?.code).toBe(
      'INVALID_ARGUMENTS',
    );
    const late = setup([write], {
      approver: { request: async () => ({ approved: false, reason: 'nobody answered', timedOut: true }) },
    });
    const result = await late.executor.execute({ name: 'write', arguments: { text: 'x' } });
    expect(result.error).toMatchObject({ code: 'APPROVAL_TIMEOUT', retryable: false });
    expect(result.status).toBe('denied');
  });

  it('uses the per-input side effect when the tool declares one', async () => {
    const http = defineTool({
      name: 'http',
      description: 'x',
      sideEffect: 'write',
      sideEffectOf: (input: { method: string }) => (input.method === 'GET' ? 'read' : 'write'),
      inputSchema: z.object({ method: z.string() }),
      execute: () => 'ok',
    });
    const { executor } = setup([http]);
    expect((await executor.execute({ name: 'http', arguments: { method: 'GET' } })).success).toBe(true);
    expect((await executor.execute({ name: 'http', arguments: { method: 'POST' } })).status).toBe('denied');
  });
});

describe('execute', () => {
  it('times out an attempt even when the tool ignores its signal, and clears every timer', async () => {
    let signalFired = false;
    const stuck = defineTool({
      name: 'stuck',
      description: 'never ends',
      sideEffect: 'none',
      timeoutMs: 1000,
      retry: { maxAttempts: 1 },
      inputSchema: z.object({}),
      execute: (_input, ctx) => {
        ctx.signal.addEventListener('abort', () => {
          signalFired = true;
        });
        return new Promise(() => {});
      },
    });
    const { executor, clock } = setup([stuck]);
    const pending = executor.execute({ name: 'stuck', arguments: {} });
    await clock.advance(999);
    expect(signalFired).toBe(false);
    await clock.advance(1);
    const result = await pending;
    expect(signalFired).toBe(true);
    expect(result.error).toMatchObject({ code: 'TIMEOUT', retryable: true, kind: 'timeout' });
    expect(result.latencyMs).toBe(1000);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('retries retryable failures with exponential backoff and records every attempt', async () => {
    let calls = 0;
    const flaky = defineTool({
      name: 'flaky',
      description: 'fails twice',
      sideEffect: 'none',
      retry: { maxAttempts: 4, baseDelayMs: 100, factor: 2, maxDelayMs: 10_000, jitter: 0 },
      inputSchema: z.object({}),
      execute: () => {
        calls++;
        if (calls < 3) throw ToolError.temporary('BUSY', 'try later');
        return { ok: true };
      },
    });
    const { executor, clock, store } = setup([flaky]);
    const pending = executor.execute({ name: 'flaky', arguments: {} });
    await clock.advance(100);
    await clock.advance(200);
    const result = await pending;
    expect(result.success).toBe(true);
    expect(result.metadata.attempts).toBe(3);
    const trace = store.get(result.traceId);
    expect(trace?.attempts.map((a) => [a.number, a.outcome, a.backoffMs, a.startedAt])).toEqual([
      [1, 'error', 100, 0],
      [2, 'error', 200, 100],
      [3, 'ok', null, 300],
    ]);
    expect(trace?.attempts[0]?.error?.code).toBe('BUSY');
    expect(trace?.flags.retried).toBe(true);
  });

  it('waits at least a Retry-After before the next attempt, within the policy cap, and says so on the attempt', async () => {
    let calls = 0;
    const limited = defineTool({
      name: 'limited',
      description: 'rate-limited twice',
      sideEffect: 'none',
      retry: { maxAttempts: 3, baseDelayMs: 100, factor: 2, maxDelayMs: 2_000, jitter: 0 },
      inputSchema: z.object({}),
      execute: () => {
        calls++;
        if (calls === 1) throw ToolError.temporary('HTTP_ERROR', 'HTTP 429', { details: { retryAfterMs: 1_500 } });
        if (calls === 2) throw ToolError.temporary('HTTP_ERROR', 'HTTP 503', { details: { retryAfterMs: 60_000 } });
        return { ok: true };
      },
    });
    const { executor, clock, store } = setup([limited]);
    const pending = executor.execute({ name: 'limited', arguments: {} });
    await clock.advance(1_499);
    expect(calls).toBe(1);
    await clock.advance(1);
    expect(calls).toBe(2);
    await clock.advance(2_000);
    const result = await pending;
    expect(result.success).toBe(true);
    const attempts = store.get(result.traceId)?.attempts ?? [];
    expect(attempts.map((a) => [a.backoffMs, a.backoffReason ?? null, a.startedAt])).toEqual([
      [1_500, 'Retry-After 1500 ms', 0],
      [2_000, "Retry-After 60000 ms, capped at the retry policy's 2000 ms", 1_500],
      [null, null, 3_500],
    ]);
  });

  it('does not retry non-retryable errors and classifies unknown throws once', async () => {
    let calls = 0;
    const broken = defineTool({
      name: 'broken',
      description: 'x',
      sideEffect: 'none',
      inputSchema: z.object({ kind: z.enum(['plain', 'reset', '503', 'sync']) }),
      execute: async ({ kind }) => {
        calls++;
        if (kind === 'reset') throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
        if (kind === '503') throw Object.assign(new Error('Service Unavailable'), { status: 503 });
        throw new TypeError('boom');
      },
      retry: { maxAttempts: 2, baseDelayMs: 0, jitter: 0 },
    });
    const { executor } = setup([broken]);
    const plain = await executor.execute({ name: 'broken', arguments: { kind: 'plain' } });
    expect(plain.error).toMatchObject({ code: 'EXECUTION_ERROR', retryable: false, message: 'boom' });
    expect(calls).toBe(1);
    const reset = await executor.execute({ name: 'broken', arguments: { kind: 'reset' } });
    expect(reset.error).toMatchObject({ retryable: true, kind: 'temporary' });
    expect(reset.metadata.attempts).toBe(2);
    const busy = await executor.execute({ name: 'broken', arguments: { kind: '503' } });
    expect(busy.error?.details).toEqual({ status: 503 });
  });

  it('turns a synchronous throw into a result', async () => {
    const sync = defineTool({
      name: 'sync',
      description: 'x',
      sideEffect: 'none',
      inputSchema: z.object({}),
      execute: () => {
        throw new Error('sync failure');
      },
    });
    const { executor } = setup([sync]);
    expect((await executor.execute({ name: 'sync', arguments: {} })).error?.message).toBe('sync failure');
  });

  it('falls back to another tool once retries are exhausted', async () => {
    const primary = defineTool({
      name: 'primary',
      description: 'x',
      sideEffect: 'none',
      retry: { maxAttempts: 2, baseDelayMs: 0, jitter: 0 },
      fallbacks: ['missing', 'backup'],
      inputSchema: z.object({ q: z.string() }),
      execute: () => {
        throw ToolError.temporary('DOWN', 'primary is down');
      },
    });
    const backup = defineTool({
      name: 'backup',
      description: 'x',
      sideEffect: 'none',
      inputSchema: z.object({ q: z.string() }),
      execute: ({ q }) => ({ from: 'backup', q }),
    });
    const { executor, store } = setup([primary, backup]);
    const result = await executor.execute({ name: 'primary', arguments: { q: 'x' } });
    expect(result.output).toEqual({ from: 'backup', q: 'x' });
    expect(result.metadata.fellBackTo).toBe('backup');
    const trace = store.get(result.traceId);
    expect(trace?.attempts.map((a) => [a.number, a.tool, a.fallback, a.outcome])).toEqual([
      [1, 'primary', false, 'error'],
      [2, 'primary', false, 'error'],
      [3, 'backup', true, 'ok'],
    ]);
    expect(trace?.stages.find((s) => s.name === 'execute')?.detail).toContain('missing: not registered');
    expect(trace?.flags.fellBack).toBe(true);
  });

  it('opens the circuit after consecutive failures and lets a trial through after the cooldown', async () => {
    let healthy = false;
    const shaky = defineTool({
      name: 'shaky',
      description: 'x',
      sideEffect: 'none',
      retry: { maxAttempts: 1 },
      circuitBreaker: { failureThreshold: 2, cooldownMs: 5000 },
      inputSchema: z.object({}),
      execute: () => {
        if (!healthy) throw ToolError.temporary('DOWN', 'down');
        return 'up';
      },
    });
    const { executor, clock } = setup([shaky]);
    await executor.execute({ name: 'shaky', arguments: {} });
    await executor.execute({ name: 'shaky', arguments: {} });
    expect(executor.circuitState('shaky')).toBe('open');
    const blocked = await executor.execute({ name: 'shaky', arguments: {} });
    expect(blocked.error?.code).toBe('CIRCUIT_OPEN');
    expect(blocked.metadata.attempts).toBe(0);
    await clock.advance(5000);
    expect(executor.circuitState('shaky')).toBe('half_open');
    healthy = true;
    expect((await executor.execute({ name: 'shaky', arguments: {} })).success).toBe(true);
    expect(executor.circuitState('shaky')).toBe('closed');
  });

  it('cancels through the caller signal without retrying', async () => {
    const slow = defineTool({
      name: 'slow',
      description: 'x',
      sideEffect: 'none',
      inputSchema: z.object({}),
      execute: (_i, ctx) =>
        new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(new Error('x')))),
    });
    const { executor, clock } = setup([slow]);
    const controller = new AbortController();
    const pending = executor.execute({ name: 'slow', arguments: {} }, { signal: controller.signal });
    await clock.advance(10);
    controller.abort();
    const result = await pending;
    expect(result.error?.code).toBe('CANCELLED');
    expect(result.metadata.attempts).toBe(1);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('injects faults per attempt', async () => {
    const { executor, store } = setup([defineTool({ ...add, retry: { maxAttempts: 3, baseDelayMs: 0, jitter: 0 } })], {
      faults: {
        faultFor: ({ attempt }) =>
          attempt === 1 ? { ruleId: 'flt_1', ruleName: 'flake', kind: 'error', code: 'FLAKE', retryable: true } : null,
      },
    });
    const result = await executor.execute({ name: 'add', arguments: { a: 1, b: 1 } });
    expect(result.success).toBe(true);
    expect(result.metadata.faulted).toBe(true);
    expect(store.get(result.traceId)?.attempts.map((a) => a.fault?.kind ?? null)).toEqual(['error', null]);
  });
});

describe('normalize', () => {
  const shell = (out: { stdout: string; stderr: string; exitCode: number }) =>
    defineTool({
      name: 'proc',
      description: 'x',
      sideEffect: 'none',
      inputSchema: z.object({}),
      execute: () => processOutput(out),
    });

  it('parses JSON stdout and keeps stderr in metadata on success', async () => {
    const { executor } = setup([shell({ stdout: '{"n":1}\n', stderr: 'warn', exitCode: 0 })]);
    const result = await executor.execute({ name: 'proc', arguments: {} });
    expect(result.output).toEqual({ n: 1 });
    expect(result.metadata).toMatchObject({ stderr: 'warn', exitCode: 0, parseFailed: false });
  });

  it('flags stdout that is not JSON', async () => {
    const { executor } = setup([shell({ stdout: 'hello', stderr: '', exitCode: 0 })]);
    const result = await executor.execute({ name: 'proc', arguments: {} });
    expect(result.output).toBe('hello');
    expect(result.metadata.parseFailed).toBe(true);
  });

  it('fails a non-zero exit at the execute stage, as a failed attempt whose output is kept', async () => {
    const { executor, store } = setup([shell({ stdout: 'partial\n', stderr: 'no such file', exitCode: 2 })]);
    const result = await executor.execute({ name: 'proc', arguments: {} });
    expect(result.error).toMatchObject({ code: 'NON_ZERO_EXIT', stage: 'execute', retryable: false });
    expect(result.error?.message).toBe('The command exited with code 2: no such file');
    expect(result.metadata).toMatchObject({ exitCode: 2, stderr: 'no such file' });
    const trace = store.get(result.traceId);
    expect(trace?.exitCode).toBe(2);
    expect(trace?.stdout).toBe('partial\n');
    expect(trace?.stderr).toBe('no such file');
    expect(trace?.attempts.map((a) => [a.outcome, a.error?.code])).toEqual([['error', 'NON_ZERO_EXIT']]);
    expect(stageMap(trace?.stages ?? [])).toMatchObject({ execute: 'failed', normalize: 'ok' });
    expect(trace?.stages.find((s) => s.name === 'normalize')?.detail).toMatch(/kept the failed attempt's output/);
    expect(trace?.status).toBe('failed');
  });

  it('rejects output that breaks the declared output schema, keeping it in the trace', async () => {
    const html = defineTool({
      name: 'api',
      description: 'x',
      sideEffect: 'none',
      inputSchema: z.object({}),
      outputSchema: z.object({ items: z.array(z.string()) }),
      execute: () => '<html>502 Bad Gateway</html>' as unknown as { items: string[] },
    });
    const { executor, store } = setup([html]);
    const result = await executor.execute({ name: 'api', arguments: {} });
    expect(result.error?.code).toBe('INVALID_OUTPUT');
    expect(store.get(result.traceId)?.output).toBe('<html>502 Bad Gateway</html>');
  });

  it('checks a large output against its schema up to the first failing field, as it does large arguments', async () => {
    // 200,000 wrong items: a full check makes an issue each (zod took 0.5–2 s of the event loop for such).
    const wrong = { items: Array.from({ length: 200_000 }, () => 7) };
    const list = defineTool({
      name: 'list',
      description: 'x',
      sideEffect: 'none',
      inputSchema: z.object({}),
      outputSchema: z.object({ items: z.array(z.string()) }),
      execute: () => wrong as unknown as { items: string[] },
    });
    const small = defineTool({
      ...list,
      name: 'small',
      execute: () => ({ items: [7, 8] }) as unknown as { items: string[] },
    });
    const { executor } = setup([list, small]);
    const large = await executor.execute({ name: 'list', arguments: {} });
    expect(large.error?.code).toBe('INVALID_OUTPUT');
    expect(large.error?.details?.issues).toEqual([expect.objectContaining({ path: 'items.0' })]);
    // A small output still gets every issue.
    const few = await executor.execute({ name: 'small', arguments: {} });
    expect(few.error?.details?.issues).toHaveLength(2);
  });

  it('truncates large output head-and-tail for the model and keeps it whole in the trace', async () => {
    const big = 'A'.repeat(50_000) + 'Z'.repeat(50_000);
    const tool = returning('big', big);
    const { executor, store } = setup([tool]);
    const result = await executor.execute({ name: 'big', arguments: {} });
    const text = result.output as string;
    expect(text.length).toBeLessThan(17_000);
    expect(text.startsWith('AAA')).toBe(true);
    expect(text.endsWith('ZZZ')).toBe(true);
    expect(text).toMatch(/…\[truncated \d+ of 100000 characters\]…/);
    expect(result.metadata.truncated).toBe(true);
    expect(store.get(result.traceId)?.output).toBe(big);
  });

  it('caps what the trace keeps at 1 MiB', async () => {
    const huge = 'x'.repeat(3 * 1024 * 1024);
    const tool = returning('huge', huge);
    const { executor, store } = setup([tool]);
    const result = await executor.execute({ name: 'huge', arguments: {} });
    const kept = store.get(result.traceId)?.output as string;
    expect(kept.length).toBeLessThanOrEqual(1024 * 1024);
  });

  it('fails output that cannot be serialized', async () => {
    const tool = returning('bigint', { n: 1n });
    const { executor } = setup([tool]);
    expect((await executor.execute({ name: 'bigint', arguments: {} })).error?.code).toBe('INVALID_OUTPUT');
  });
});

describe('redaction', () => {
  it('stores arguments redacted and scrubs their secrets from output and stdout', async () => {
    const echo = defineTool({
      name: 'echo',
      description: 'x',
      sideEffect: 'none',
      sensitivePaths: ['login.pin'],
      inputSchema: z.object({ password: z.string(), login: z.object({ pin: z.string() }), note: z.string() }),
      execute: (input) => processOutput({ stdout: `${input.password} ${input.login.pin}`, stderr: '', exitCode: 0 }),
    });
    const { executor, store } = setup([echo]);
    const result = await executor.execute({
      name: 'echo',
      arguments: { password: 'hunter22', login: { pin: '98765' }, note: 'key sk-abcdefghijklmnop1234' },
    });
    const trace = store.get(result.traceId);
    expect(trace?.arguments).toEqual({ password: REDACTED, login: { pin: REDACTED }, note: `key ${REDACTED}` });
    expect(trace?.stdout).toBe(`${REDACTED} ${REDACTED}`);
    expect(result.output).toBe(`${REDACTED} ${REDACTED}`);
    expect(trace?.modelMessage).not.toContain('hunter22');
    expect(store.openSealedArguments(result.traceId)?.rawArguments).toContain('hunter22');
  });
});

describe('model message and result contract', () => {
  it('tells the model the code, the message, whether to retry and what to change', async () => {
    const { executor, store } = setup([add]);
    const result = await executor.execute({ name: 'add', arguments: { a: 1 } });
    const message = store.get(result.traceId)?.modelMessage ?? '';
    expect(message).toContain('Error INVALID_ARGUMENTS');
    expect(message).toContain('b:');
    expect(message).toMatch(/Retrying the same call will fail/);
    expect(message).toMatch(/What to do:/);
  });

  it('returns JSON text for object outputs', async () => {
    const { executor, store } = setup([add]);
    const result = await executor.execute({ name: 'add', arguments: { a: 1, b: 2 } });
    expect(store.get(result.traceId)?.modelMessage).toBe('{"sum":3}');
    expect(result).toMatchObject({ success: true, status: 'succeeded' });
    expect(result.error).toBeUndefined();
  });
});

describe('trace sink failures', () => {
  it('does not run a tool whose call could not be recorded', async () => {
    let ran = false;
    const tool = defineTool({
      ...add,
      execute: () => {
        ran = true;
        return { sum: 0 };
      },
    });
    const finished: string[] = [];
    const sink: TraceSink = {
      begin: () => {
        throw new Error('disk full');
      },
      update: () => {},
      finish: (r) => {
        finished.push(r.status);
      },
    };
    const executor = createExecutor({ registry: createRegistry([tool]), sink });
    const result = await executor.execute({ name: 'add', arguments: { a: 1, b: 1 } });
    expect(ran).toBe(false);
    expect(result.error?.code).toBe('TRACE_UNAVAILABLE');
    expect(finished).toEqual(['failed']);
  });

  it('still returns the result when finishing the trace fails', async () => {
    const sink: TraceSink = {
      begin: () => {},
      update: () => {},
      finish: () => Promise.reject(new Error('locked')),
    };
    const executor = createExecutor({ registry: createRegistry([add]), sink });
    const original = console.error;
    console.error = () => {};
    try {
      const result = await executor.execute({ name: 'add', arguments: { a: 1, b: 1 } });
      expect(result.output).toEqual({ sum: 2 });
    } finally {
      console.error = original;
    }
  });
});

describe('executeBatch', () => {
  const sleepy = defineTool({
    name: 'sleepy',
    description: 'x',
    sideEffect: 'none',
    inputSchema: z.object({ ms: z.number(), fail: z.boolean().optional() }),
    retry: { maxAttempts: 1 },
    execute: async ({ ms, fail }, ctx) => {
      await new Promise<void>((resolve) => ctx.clock.setTimeout(resolve, ms));
      if (fail) throw new Error('failed on purpose');
      return ms;
    },
  });

  it('keeps input order, honours the concurrency limit and never loses a result', async () => {
    let inFlight = 0;
    let peak = 0;
    const tracked = defineTool({
      ...sleepy,
      execute: async (input, ctx) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        try {
          return await sleepy.execute(input, ctx);
        } finally {
          inFlight--;
        }
      },
    });
    const { executor, clock } = setup([tracked]);
    const calls = [30, 10, 20, 5, 15].map((ms, i) => ({
      id: `c${i}`,
      name: 'sleepy',
      arguments: { ms, fail: i === 1 },
    }));
    const pending = executor.executeBatch(calls, { maxConcurrency: 2 });
    for (let i = 0; i < 10; i++) await clock.advance(10);
    const results = await pending;
    expect(results.map((r) => r.toolCallId)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
    expect(results.map((r) => r.success)).toEqual([true, false, true, true, true]);
    expect(peak).toBe(2);
  });

  it('under fail-fast, traces the calls not started as CANCELLED', async () => {
    const { executor, clock, store } = setup([sleepy]);
    const calls = [
      { id: 'a', name: 'sleepy', arguments: { ms: 5, fail: true } },
      { id: 'b', name: 'sleepy', arguments: { ms: 50 } },
      { id: 'c', name: 'sleepy', arguments: { ms: 1 } },
      { id: 'd', name: 'nope', arguments: {} },
    ];
    const pending = executor.executeBatch(calls, { maxConcurrency: 2, failFast: true });
    for (let i = 0; i < 10; i++) await clock.advance(10);
    const results = await pending;
    expect(results.map((r) => r.error?.code ?? 'ok')).toEqual(['EXECUTION_ERROR', 'ok', 'CANCELLED', 'CANCELLED']);
    const cancelled = store.get(results[2]?.traceId ?? '');
    expect(cancelled?.stages.map((s) => s.status)).toEqual([
      'skipped',
      'skipped',
      'skipped',
      'skipped',
      'skipped',
      'ok',
    ]);
  });
});
