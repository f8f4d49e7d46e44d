import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryTraceStore } from '../db/memory-trace-store';
import { openDatabase, type SqliteDatabase } from '../db/open-database';
import { createFaultStore, type FaultStore } from '../faults/fault-store';
import { defineTool } from './define-tool';
import { createExecutor, type ExecutorOptions } from './executor';
import { createManualClock } from './manual-clock';
import { processOutput } from './process-output';
import { createRegistry } from './registry';
import type { AnyTool, ExecutionContext, ToolCall, ToolResult } from './types';

/**
 * Each fault kind through the real executor and the real fault rules (on an in-memory SQLite
 * database), on the manual clock: faults act inside the execute stage, per attempt, so timeouts,
 * retries, backoff, fallbacks and the breaker react as to real failures.
 */
const dbs: SqliteDatabase[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
});

let runs = 0;
const search = defineTool({
  name: 'http_search',
  description: 'Searches',
  sideEffect: 'none',
  inputSchema: z.object({ q: z.string() }),
  outputSchema: z.object({ hits: z.array(z.string()) }),
  timeoutMs: 1_000,
  retry: { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 5_000, factor: 2, jitter: 0 },
  circuitBreaker: false,
  execute: ({ q }) => {
    runs++;
    return { hits: [`${q}-1`, `${q}-2`] };
  },
});

const echo = defineTool({
  name: 'echo',
  description: 'Says it back',
  sideEffect: 'none',
  inputSchema: z.object({ text: z.string() }),
  circuitBreaker: false,
  execute: ({ text }) => text,
});

function setup(tools: AnyTool[] = [search, echo], options: Partial<ExecutorOptions> = {}) {
  runs = 0;
  const db = openDatabase(':memory:');
  dbs.push(db);
  const clock = createManualClock();
  const faults = createFaultStore({ db, now: clock.epochMs, timers: clock, newSeed: () => 42 });
  const store = createMemoryTraceStore();
  const executor = createExecutor({
    registry: createRegistry(tools),
    sink: store,
    clock,
    random: () => 0,
    faults,
    ...options,
  });
  /** Runs a call to its end, moving the clock as far as needed. */
  async function run(call: ToolCall, ctx?: ExecutionContext, advanceMs = 60_000): Promise<ToolResult> {
    const pending = executor.execute(call, ctx);
    await clock.advance(advanceMs);
    return pending;
  }
  return { db, clock, faults, store, executor, run };
}

const q = (text = 'cats'): ToolCall => ({ name: 'http_search', arguments: { q: text } });

describe('fault kinds', () => {
  it('latency: adds the delay (jitter drawn from the rule), records the real delay, and runs the tool', async () => {
    const { faults, store, run } = setup();
    const rule = faults.create({
      name: 'slow',
      tool: 'http_search',
      kind: 'latency',
      params: { ms: 300, jitter_ms: 50 },
    });
    const result = await run(q());
    expect(result.success).toBe(true);
    expect(result.metadata.faulted).toBe(true);
    const attempt = store.get(result.traceId)?.attempts[0];
    const fault = attempt?.fault;
    expect(fault).toMatchObject({ ruleId: rule.id, ruleName: 'slow', kind: 'latency', jitterMs: 50 });
    expect(fault?.kind === 'latency' && fault.ms).toBeGreaterThanOrEqual(300);
    expect(fault?.kind === 'latency' && fault.ms).toBeLessThanOrEqual(350);
    expect(attempt?.durationMs).toBe(fault?.kind === 'latency' ? fault.ms : -1);
    expect(store.get(result.traceId)?.flags.faulted).toBe(true);
    expect(runs).toBe(1);
  });

  it('latency counts inside the attempt timeout: a delay past it times the attempt out, marked injected', async () => {
    const { faults, store, run } = setup();
    faults.create({ name: 'very slow', tool: 'http_search', kind: 'latency', params: { ms: 5_000 } });
    const result = await run(q());
    expect(result.error?.code).toBe('TIMEOUT');
    expect(result.error?.message).toMatch(/^Injected fault \(fault rule "very slow", latency\): http_search timed out/);
    const attempts = store.get(result.traceId)?.attempts ?? [];
    expect(attempts.map((a) => [a.outcome, a.durationMs])).toEqual([
      ['timeout', 1_000],
      ['timeout', 1_000],
      ['timeout', 1_000],
    ]);
    expect(runs).toBe(0);
  });

  it('timeout: the attempt hangs until its deadline; retries react as to a real timeout', async () => {
    const { faults, store, run } = setup();
    faults.create({ name: 'hang', tool: 'http_*', kind: 'timeout', max_hits: 1 });
    const result = await run(q());
    expect(result.success).toBe(true);
    const attempts = store.get(result.traceId)?.attempts ?? [];
    expect(attempts.map((a) => a.outcome)).toEqual(['timeout', 'ok']);
    expect(attempts[0]).toMatchObject({
      durationMs: 1_000,
      backoffMs: 100,
      fault: { kind: 'timeout', ruleName: 'hang' },
    });
    expect(attempts[0]?.error?.message).toContain('Injected fault (fault rule "hang", timeout)');
    expect(attempts[1]?.fault).toBeNull();
  });

  it('error: code, message and retryable as given; not retryable is a business error, tried once', async () => {
    const { faults, store, run } = setup();
    faults.create({
      name: 'broken',
      tool: 'http_search',
      kind: 'error',
      params: { code: 'UPSTREAM_DOWN', message: 'The API is down.' },
    });
    const result = await run(q());
    expect(result.error).toMatchObject({ code: 'UPSTREAM_DOWN', kind: 'business', retryable: false });
    expect(result.error?.message).toBe('Injected fault (fault rule "broken", error): The API is down.');
    expect(result.error?.details?.injectedFault).toMatchObject({ ruleName: 'broken', kind: 'error' });
    expect(store.get(result.traceId)?.stages.find((s) => s.name === 'execute')?.detail).toMatch(
      /; 1 attempt, with an injected fault \(fault rule "broken"\)$/,
    );
    expect(store.get(result.traceId)?.attempts).toHaveLength(1);
    expect(store.get(result.traceId)?.modelMessage).toContain('Injected fault (fault rule "broken"');
    expect(runs).toBe(0);
  });

  it('error: a retryable one is temporary and retried with backoff until the attempts run out', async () => {
    const { faults, store, run } = setup();
    faults.create({ name: 'flaky', tool: 'http_search', kind: 'error', params: { code: 'FLAKE', retryable: true } });
    const result = await run(q());
    expect(result.error).toMatchObject({ code: 'FLAKE', kind: 'temporary', retryable: true });
    expect(store.get(result.traceId)?.attempts.map((a) => a.backoffMs)).toEqual([100, 200, null]);
  });

  it('fail_first N=2: three attempts, the first two fail with backoff, the third runs the tool', async () => {
    const { faults, store, run } = setup();
    const rule = faults.create({ name: 'flaky search', tool: 'http_*', kind: 'fail_first', params: { n: 2 } });
    const result = await run(q());
    expect(result.success).toBe(true);
    expect(result.output).toEqual({ hits: ['cats-1', 'cats-2'] });
    const attempts = store.get(result.traceId)?.attempts ?? [];
    expect(attempts.map((a) => [a.number, a.outcome, a.backoffMs, a.fault?.kind ?? null])).toEqual([
      [1, 'error', 100, 'fail_first'],
      [2, 'error', 200, 'fail_first'],
      [3, 'ok', null, null],
    ]);
    expect(attempts[0]?.error).toMatchObject({ code: 'INJECTED_FAILURE', retryable: true, kind: 'temporary' });
    expect(attempts[0]?.error?.message).toContain('Injected fault (fault rule "flaky search", fail_first)');
    expect(result.metadata.faulted).toBe(true);
    expect(store.get(result.traceId)?.stages.find((s) => s.name === 'execute')?.detail).toBe(
      '3 attempts, 2 with an injected fault (fault rule "flaky search")',
    );
    expect(faults.get(rule.id)?.hits).toBe(2);
    expect(runs).toBe(1);
  });

  it('corrupt_output replace: the tool runs, its output fails the output schema with INVALID_OUTPUT, marked injected', async () => {
    const { faults, store, run } = setup();
    faults.create({
      name: 'garbage',
      tool: 'http_search',
      kind: 'corrupt_output',
      params: { mode: 'replace', value: { nope: 1 } },
    });
    const result = await run(q());
    expect(runs).toBe(1);
    expect(result.error?.code).toBe('INVALID_OUTPUT');
    expect(result.error?.message).toMatch(
      /^Injected fault \(fault rule "garbage", corrupt_output\): http_search returned output/,
    );
    const trace = store.get(result.traceId);
    expect(trace?.attempts[0]).toMatchObject({ outcome: 'ok', fault: { kind: 'corrupt_output', mode: 'replace' } });
    expect(trace?.stages.find((s) => s.name === 'normalize')).toMatchObject({ status: 'failed' });
    expect(trace?.output).toEqual({ nope: 1 });
  });

  it('corrupt_output truncate and invalid_json: half the text, or JSON that does not parse', async () => {
    const { faults, run } = setup();
    const cut = faults.create({ name: 'cut', tool: 'echo', kind: 'corrupt_output', params: { mode: 'truncate' } });
    const half = await run({ name: 'echo', arguments: { text: 'abcdefgh' } });
    expect(half.output).toBe('abcd');
    faults.delete(cut.id);
    faults.create({ name: 'cut json', tool: 'http_search', kind: 'corrupt_output', params: { mode: 'truncate' } });
    const json = await run(q('x'));
    expect(json.error?.code).toBe('INVALID_OUTPUT');
    faults.reset();
    faults.create({ name: 'bad json', tool: 'echo', kind: 'corrupt_output', params: { mode: 'invalid_json' } });
    const broken = await run({ name: 'echo', arguments: { text: 'plain' } });
    expect(typeof broken.output).toBe('string');
    expect(() => JSON.parse(broken.output as string)).toThrow();
  });

  it('exit_code: a failed process with its exit code and stderr, kept in the trace', async () => {
    const { faults, store, run } = setup();
    faults.create({
      name: 'crash',
      tool: 'echo',
      kind: 'exit_code',
      params: { code: 3, stderr: 'segfault in module x' },
    });
    const result = await run({ name: 'echo', arguments: { text: 'hi' } });
    expect(result.error).toMatchObject({ code: 'NON_ZERO_EXIT', retryable: false });
    expect(result.error?.message).toBe(
      'Injected fault (fault rule "crash", exit_code): The command exited with code 3: segfault in module x',
    );
    expect(result.metadata).toMatchObject({ exitCode: 3, stderr: 'segfault in module x', faulted: true });
    const trace = store.get(result.traceId);
    expect(trace).toMatchObject({ exitCode: 3, stderr: 'segfault in module x' });
    expect(trace?.attempts[0]?.fault).toMatchObject({ kind: 'exit_code', code: 3 });
  });

  it('rate_limit: a retryable 429 whose Retry-After the backoff honours, and the attempt row says why', async () => {
    const { faults, store, run } = setup();
    faults.create({
      name: 'throttle',
      tool: 'http_search',
      kind: 'rate_limit',
      params: { retry_after_ms: 1_500 },
      max_hits: 1,
    });
    const result = await run(q());
    expect(result.success).toBe(true);
    const attempts = store.get(result.traceId)?.attempts ?? [];
    expect(attempts[0]).toMatchObject({
      outcome: 'error',
      backoffMs: 1_500,
      backoffReason: 'Retry-After 1500 ms',
      fault: { kind: 'rate_limit', retryAfterMs: 1_500 },
      error: { code: 'RATE_LIMITED', retryable: true, details: { status: 429, retryAfterMs: 1_500 } },
    });
    expect(attempts[1]?.startedAt).toBeGreaterThanOrEqual(1_500);
  });
});

describe('fault rules and the pipeline', () => {
  it('a process-like tool: corrupt_output corrupts its stdout', async () => {
    const proc = defineTool({
      name: 'proc',
      description: 'prints JSON',
      sideEffect: 'none',
      inputSchema: z.object({}),
      execute: () => processOutput({ stdout: '{"a":1}', stderr: '', exitCode: 0 }),
    });
    const { faults, run } = setup([proc]);
    faults.create({ name: 'bad stdout', tool: 'proc', kind: 'corrupt_output', params: { mode: 'invalid_json' } });
    const result = await run({ name: 'proc', arguments: {} });
    expect(result.success).toBe(true);
    expect(result.metadata.parseFailed).toBe(true);
    expect(result.output).toBe('{"a":1,}');
  });

  it('numbers attempts across the call: fallbacks continue the count, and the breaker opens on injected failures', async () => {
    const seen: number[] = [];
    const primary = defineTool({
      name: 'http_primary',
      description: 'x',
      sideEffect: 'none',
      inputSchema: z.object({ q: z.string() }),
      retry: { maxAttempts: 2, baseDelayMs: 10, jitter: 0 },
      circuitBreaker: { failureThreshold: 2, cooldownMs: 60_000 },
      fallbacks: ['backup'],
      execute: () => 'primary',
    });
    const backup = defineTool({
      name: 'backup',
      description: 'x',
      sideEffect: 'none',
      inputSchema: z.object({ q: z.string() }),
      execute: () => 'backup',
    });
    const rules = setup([primary, backup]).faults;
    rules.create({ name: 'down', tool: 'http_*', kind: 'error', params: { code: 'DOWN', retryable: true } });
    const spy = {
      faultFor: (request: Parameters<FaultStore['faultFor']>[0]) => {
        seen.push(request.attempt);
        return rules.faultFor(request);
      },
    };
    const { run, store, executor } = setup([primary, backup], { faults: spy });
    const first = await run({ name: 'http_primary', arguments: { q: 'a' } });
    expect(first).toMatchObject({ success: true, output: 'backup' });
    expect(seen).toEqual([1, 2, 3]);
    expect(store.get(first.traceId)?.attempts.map((a) => [a.number, a.tool, a.fault?.kind ?? null])).toEqual([
      [1, 'http_primary', 'error'],
      [2, 'http_primary', 'error'],
      [3, 'backup', null],
    ]);
    expect(store.get(first.traceId)?.flags).toMatchObject({ faulted: true, fellBack: true, retried: true });
    expect(executor.circuitState('http_primary')).toBe('closed');
    await run({ name: 'http_primary', arguments: { q: 'b' } });
    expect(executor.circuitState('http_primary')).toBe('open');
  });

  it('matches a glob, a session, and takes the first rule by creation order', async () => {
    const { faults, store, run } = setup();
    faults.create({ name: 'only s2', tool: 'http_search', session_id: 's2', kind: 'error', params: { code: 'S2' } });
    faults.create({ name: 'first', tool: 'http_*', kind: 'error', params: { code: 'FIRST' } });
    faults.create({ name: 'second', tool: 'http_search', kind: 'error', params: { code: 'SECOND' } });
    expect((await run(q(), { sessionId: 's1' })).error?.code).toBe('FIRST');
    expect((await run(q(), { sessionId: 's2' })).error?.code).toBe('S2');
    const other = await run({ name: 'echo', arguments: { text: 'x' } });
    expect(other.success).toBe(true);
    expect(store.get(other.traceId)?.flags.faulted).toBe(false);
    expect(faults.list().map((r) => [r.name, r.hits])).toEqual([
      ['second', 0],
      ['first', 1],
      ['only s2', 1],
    ]);
  });

  it('stops after max_hits', async () => {
    const { faults, run } = setup();
    const rule = faults.create({ name: 'twice', tool: 'echo', kind: 'error', params: { code: 'X' }, max_hits: 2 });
    const codes: (string | null)[] = [];
    for (let i = 0; i < 4; i++) codes.push((await run({ name: 'echo', arguments: { text: 'x' } })).error?.code ?? null);
    expect(codes).toEqual(['X', 'X', null, null]);
    expect(faults.get(rule.id)?.hits).toBe(2);
    expect(faults.activeCount()).toBe(0);
    expect(faults.isActive(faults.get(rule.id) as never)).toBe(false);
  });

  it("expires on the executor's clock", async () => {
    const { faults, run, clock } = setup();
    faults.create({
      name: 'brief',
      tool: 'echo',
      kind: 'error',
      params: { code: 'X' },
      expires_at: clock.epochMs() + 5_000,
    });
    expect(faults.activeCount()).toBe(1);
    expect((await run({ name: 'echo', arguments: { text: 'x' } }, {}, 1_000)).error?.code).toBe('X');
    await clock.advance(4_000);
    expect((await run({ name: 'echo', arguments: { text: 'x' } }, {}, 1_000)).success).toBe(true);
    expect(faults.activeCount()).toBe(0);
  });

  it('seeded probability: one seed and the same calls give the same faults; probability 1 takes no draw', async () => {
    async function sequence(seed: number) {
      const { faults, run } = setup();
      const rule = faults.create({
        name: 'coin',
        tool: 'echo',
        kind: 'error',
        params: { code: 'X' },
        probability: 0.5,
        seed,
      });
      const out: boolean[] = [];
      for (let i = 0; i < 24; i++) out.push((await run({ name: 'echo', arguments: { text: `${i}` } }, {}, 10)).success);
      return { out, rule: faults.get(rule.id) };
    }
    const a = await sequence(7);
    const b = await sequence(7);
    const c = await sequence(8);
    expect(a.out).toEqual(b.out);
    expect(a.out).not.toEqual(c.out);
    expect(a.out.filter(Boolean).length).toBeGreaterThan(4);
    expect(a.out.filter((ok) => !ok).length).toBeGreaterThan(4);
    expect(a.rule?.draws).toBe(24);
    expect(a.rule?.hits).toBe(a.out.filter((ok) => !ok).length);
    const { faults, run } = setup();
    const sure = faults.create({ name: 'sure', tool: 'echo', kind: 'error', params: { code: 'X' } });
    await run({ name: 'echo', arguments: { text: 'x' } }, {}, 10);
    expect(faults.get(sure.id)).toMatchObject({ hits: 1, draws: 0 });
  });

  it('the one-off fault of a call applies like a rule with probability 1 to that call only (rule id null)', async () => {
    const { faults, store, run } = setup();
    const rule = faults.create({ name: 'never used', tool: 'http_search', kind: 'error', params: { code: 'RULE' } });
    const result = await run(q(), { fault: { kind: 'fail_first', n: 1 } });
    expect(result.success).toBe(true);
    const attempts = store.get(result.traceId)?.attempts ?? [];
    expect(attempts.map((a) => a.fault)).toEqual([{ ruleId: null, kind: 'fail_first', n: 1 }, null]);
    expect(attempts[0]?.error?.message).toContain('Injected fault (a one-off fault given with this call, fail_first)');
    expect(faults.get(rule.id)?.hits).toBe(0);
    // The next call has no one-off fault: the rule applies again.
    expect((await run(q())).error?.code).toBe('RULE');
  });

  it('without rules the fault source is idle and not asked (no request built on the hot path)', async () => {
    let asked = 0;
    const { executor, store } = setup([echo], {
      faults: {
        idle: () => true,
        faultFor: () => {
          asked++;
          return null;
        },
      },
    });
    const result = await executor.execute({ name: 'echo', arguments: { text: 'fast' } });
    expect(result.output).toBe('fast');
    expect(asked).toBe(0);
    expect(store.get(result.traceId)?.attempts[0]?.fault).toBeNull();
    const { faults } = setup();
    expect(faults.idle()).toBe(true);
    faults.create({ name: 'x', tool: 'y', kind: 'timeout' });
    expect(faults.idle()).toBe(false);
  });

  it('a cancellation during an injected delay or hang ends the attempt cancelled, not marked injected', async () => {
    const { faults, executor, clock, store } = setup();
    faults.create({ name: 'slow', tool: 'http_search', kind: 'latency', params: { ms: 500 } });
    faults.create({ name: 'hang', tool: 'echo', kind: 'timeout' });
    const slow = executor.execute(q());
    const hung = executor.execute({ name: 'echo', arguments: { text: 'x' } });
    await clock.advance(100);
    const ids = executor.inFlightIds();
    expect(ids).toHaveLength(2);
    for (const id of ids) await executor.cancel(id, { by: 'test' });
    for (const result of [await slow, await hung]) {
      expect(result.status).toBe('cancelled');
      expect(result.error?.message).not.toContain('Injected fault');
      expect(store.get(result.traceId)?.attempts.map((a) => a.outcome)).toEqual(['cancelled']);
    }
    expect(runs).toBe(0);
    faults.flush(); // its batched hit write is the one timer left
    expect(clock.pendingTimers()).toBe(0);
  });

  it('a call no rule matches runs as usual, with no fault recorded', async () => {
    const { faults, executor, store } = setup();
    faults.create({ name: 'elsewhere', tool: 'http_*', kind: 'timeout' });
    const result = await executor.execute({ name: 'echo', arguments: { text: 'fast' } });
    expect(result.output).toBe('fast');
    expect(store.get(result.traceId)?.attempts[0]?.fault).toBeNull();
  });
});
