import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMemoryTraceStore } from '../db/memory-trace-store';
import { defineTool } from './define-tool';
import { createExecutor } from './executor';
import { createManualClock } from './manual-clock';
import type { ApprovalDecision, ApprovalRequest, Approver } from './ports';
import { REDACTED } from './redact';
import { createRegistry } from './registry';
import type { TraceRecord, TraceSink } from './types';

/** An approver whose requests wait until the test decides them. */
function manualApprover() {
  const waiting: { request: ApprovalRequest; decide: (decision: ApprovalDecision) => void }[] = [];
  const approver: Approver = {
    request: (request) => new Promise((decide) => waiting.push({ request, decide })),
  };
  return { approver, waiting };
}

const fetchLike = defineTool({
  name: 'fetch_like',
  description: 'An HTTP-like tool: GET reads, DELETE writes.',
  inputSchema: z.object({ method: z.enum(['GET', 'DELETE']), url: z.string(), token: z.string().optional() }),
  sideEffect: 'write',
  sideEffectOf: (input) => (input.method === 'GET' ? 'read' : 'write'),
  sensitivePaths: ['token'],
  execute: (input) => ({ did: `${input.method} ${input.url}` }),
});

/** Everything the sink was given, as the store would have it at that moment. */
function recordingSink(store: ReturnType<typeof createMemoryTraceStore>) {
  const writes: { type: string; status: string; decision: string | null }[] = [];
  const note = (type: string, record: TraceRecord) =>
    writes.push({ type, status: record.status, decision: record.approval?.decision ?? null });
  const sink: TraceSink = {
    begin: (record) => {
      note('begin', record);
      store.begin(record);
    },
    update: (record) => {
      note('update', record);
      store.update(record);
    },
    finish: (record) => {
      note('finish', record);
      store.finish(record);
    },
  };
  return { sink, writes };
}

function setup(options: { policy?: 'ask' | 'allow'; approvalTimeoutMs?: number | null; deny?: string } = {}) {
  const store = createMemoryTraceStore();
  const clock = createManualClock();
  const { approver, waiting } = manualApprover();
  const { sink, writes } = recordingSink(store);
  let statusWhileRunning: string | undefined;
  let decisionWhileRunning: string | null | undefined;
  const probe = defineTool({
    name: 'probe',
    description: 'Writes; reads its own trace while it runs.',
    inputSchema: z.object({ text: z.string() }),
    sideEffect: 'write',
    execute: (input, ctx) => {
      const stored = store.get(ctx.traceId);
      statusWhileRunning = stored?.status;
      decisionWhileRunning = stored?.approval?.decision;
      return { wrote: input.text };
    },
  });
  const executor = createExecutor({
    registry: createRegistry([probe, fetchLike]),
    sink,
    approver,
    clock,
    approvalTimeoutMs: options.approvalTimeoutMs,
    policy: ({ input }) =>
      options.deny && JSON.stringify(input).includes(options.deny)
        ? { policy: 'deny', rule: `deny *(${options.deny})` }
        : { policy: 'ask', rule: 'ask probe' },
  });
  const pending = async () => {
    for (let i = 0; i < 20 && waiting.length === 0; i++) await Promise.resolve();
    const next = waiting.shift();
    if (!next) throw new Error('no approval request');
    return next;
  };
  return {
    store,
    clock,
    executor,
    writes,
    pending,
    running: () => ({ status: statusWhileRunning, decision: decisionWhileRunning }),
  };
}

describe('approval in the executor', () => {
  it('persists the decision and `running` before the tool runs, each as its own write', async () => {
    const t = setup();
    const result = t.executor.execute({ name: 'probe', arguments: { text: 'hi' } }, { actor: 'agent' });
    const { request, decide } = await t.pending();
    expect(request).toMatchObject({
      tool: 'probe',
      rule: 'ask probe',
      actor: 'agent',
      expiresAt: request.requestedAt + 600_000,
    });
    expect(t.store.get(request.traceId)).toMatchObject({
      status: 'awaiting_approval',
      approval: { rule: 'ask probe', decision: null, expiresAt: request.requestedAt + 600_000 },
    });
    decide({ approved: true, by: 'alice', reason: 'looks fine' });
    const done = await result;
    expect(done.status).toBe('succeeded');
    expect(t.running()).toEqual({ status: 'running', decision: 'approved' });
    expect(t.writes.map((w) => `${w.type}:${w.status}:${w.decision}`)).toEqual([
      'begin:running:null',
      'update:awaiting_approval:null',
      'update:running:approved',
      'finish:succeeded:approved',
    ]);
    const trace = t.store.get(done.traceId);
    expect(trace?.approval).toMatchObject({ decision: 'approved', by: 'alice', reason: 'looks fine' });
    expect(trace?.stages.find((s) => s.name === 'permission')?.detail).toBe('approved by alice (ask probe)');
  });

  it('records edited arguments beside the original, sealed raw, with the side effect of what ran', async () => {
    const t = setup();
    const result = t.executor.execute({
      name: 'fetch_like',
      arguments: { method: 'GET', url: 'https://x.test/a', token: 'sk-original-secret-1234' },
    });
    const { request, decide } = await t.pending();
    expect(request.sideEffect).toBe('read');
    const edited = { method: 'DELETE', url: 'https://x.test/a', token: 'sk-edited-secret-5678' };
    expect(request.validate({ method: 'PATCH', url: 1 })).toMatchObject({
      ok: false,
      error: { code: 'INVALID_ARGUMENTS' },
    });
    expect(request.validate(edited)).toEqual({ ok: true });
    decide({ approved: true, input: edited, by: 'bob' });
    const done = await result;
    expect(done.output).toEqual({ did: 'DELETE https://x.test/a' });
    const trace = t.store.get(done.traceId);
    expect(trace?.arguments).toEqual({ method: 'GET', url: 'https://x.test/a', token: REDACTED });
    expect(trace?.editedArguments).toEqual({ method: 'DELETE', url: 'https://x.test/a', token: REDACTED });
    expect(t.store.openSealedArguments(done.traceId)).toEqual({
      rawArguments: expect.stringContaining('sk-original-secret-1234'),
      rawEditedArguments: JSON.stringify(edited),
    });
    expect(trace?.sideEffect).toBe('write');
    // Reading the trace opens nothing sealed: no secret in it.
    expect(JSON.stringify(trace)).not.toContain('sk-edited');
    expect(JSON.stringify(trace)).not.toContain('sk-original');
  });

  it('refuses edited arguments that are invalid or that a deny rule matches', async () => {
    const invalid = setup();
    const first = invalid.executor.execute({ name: 'probe', arguments: { text: 'a' } });
    (await invalid.pending()).decide({ approved: true, input: { text: 3 } });
    expect((await first).error).toMatchObject({ code: 'INVALID_ARGUMENTS', stage: 'permission' });

    const denied = setup({ deny: 'rm -rf' });
    const second = denied.executor.execute({ name: 'probe', arguments: { text: 'ls' } });
    (await denied.pending()).decide({ approved: true, input: { text: 'rm -rf /' } });
    const result = await second;
    expect(result.error).toMatchObject({ code: 'PERMISSION_DENIED', details: { rule: 'deny *(rm -rf)' } });
    expect(denied.running().status).toBeUndefined();
  });

  it('gives the model the reason of a denial, and who denied', async () => {
    const t = setup();
    const result = t.executor.execute({ name: 'probe', arguments: { text: 'x' } });
    (await t.pending()).decide({ approved: false, reason: 'write to notes/ instead', by: 'carol' });
    const done = await result;
    expect(done.status).toBe('denied');
    expect(done.error).toMatchObject({ code: 'PERMISSION_DENIED', retryable: false });
    expect(done.error?.message).toBe('The call to probe was denied by carol: write to notes/ instead');
    expect(t.store.get(done.traceId)?.approval).toMatchObject({
      decision: 'denied',
      by: 'carol',
      reason: 'write to notes/ instead',
    });
  });

  it('expires on the executor clock with APPROVAL_TIMEOUT, not retryable, and tells the approver', async () => {
    const t = setup({ approvalTimeoutMs: 30_000 });
    const result = t.executor.execute({ name: 'probe', arguments: { text: 'x' } });
    const { request } = await t.pending();
    await t.clock.advance(29_999);
    expect(request.signal.aborted).toBe(false);
    await t.clock.advance(1);
    const done = await result;
    expect(request.signal.aborted).toBe(true);
    expect(done.status).toBe('denied');
    expect(done.error).toMatchObject({ code: 'APPROVAL_TIMEOUT', retryable: false });
    expect(done.error?.message).toBe('No one approved or denied this call to probe within 30 s, so it was not run.');
    expect(t.store.get(done.traceId)?.approval).toMatchObject({ decision: 'expired' });
    expect(t.running().status).toBeUndefined();
  });

  it('never expires with approvalTimeoutMs null', async () => {
    const t = setup({ approvalTimeoutMs: null });
    const result = t.executor.execute({ name: 'probe', arguments: { text: 'x' } });
    const { request, decide } = await t.pending();
    expect(request.expiresAt).toBeNull();
    await t.clock.advance(365 * 24 * 3_600_000);
    decide({ approved: true });
    expect((await result).status).toBe('succeeded');
  });

  it('records a cancellation while waiting as the decision, with who cancelled', async () => {
    const t = setup();
    const result = t.executor.execute({ name: 'probe', arguments: { text: 'x' } });
    const { request } = await t.pending();
    t.executor.cancel(request.traceId, { by: 'dave', reason: 'wrong file' });
    const done = await result;
    expect(done.status).toBe('cancelled');
    expect(t.store.get(done.traceId)?.approval).toMatchObject({
      decision: 'cancelled',
      by: 'dave',
      reason: 'wrong file',
    });
  });
});
