import { describe, expect, it } from 'vitest';
import { LOCAL, testPrincipal } from '../access/testing/principals';
import type { ApprovalDecision, ApprovalRequest } from '../executor/ports';
import type { CallPrincipal } from '../executor/types';
import { createApprovalQueue, isSelfApproval } from './approval-queue';

/**
 * Nobody decides their own call: `isSelfApproval`, and the approvals queue's `decide` refusing
 * `self_approval` (approve or deny, whatever the role) while the call stays pending for someone
 * else; local mode's one person decides their own calls; calls without a principal are anyone's.
 */

const alice = testPrincipal('alice', 'reviewer');
const bob = testPrincipal('bob', 'reviewer');
const admin = testPrincipal('boss', 'admin');

let traces = 0;

/** Puts a call by `principal` in the queue; resolves with its decision. */
function ask(queue: ReturnType<typeof createApprovalQueue>, principal: CallPrincipal | null) {
  traces++;
  const request: ApprovalRequest = {
    traceId: `trace-${traces}`,
    toolCallId: `call_${traces}`,
    sessionId: null,
    actor: 'api',
    principal,
    tool: 'write_file',
    sideEffect: 'write',
    arguments: { path: 'notes/a.md', content: 'x' },
    input: { path: 'notes/a.md', content: 'x' },
    rule: 'default for write: ask',
    requestedAt: Date.UTC(2026, 0, 1),
    expiresAt: null,
    validate: () => ({ ok: true }),
    signal: new AbortController().signal,
  };
  const decision: Promise<ApprovalDecision> = queue.request(request);
  return { traceId: request.traceId, decision };
}

describe('isSelfApproval', () => {
  it('is a principal deciding a call made with its own key, whatever their names or roles', () => {
    expect(isSelfApproval(alice, alice)).toBe(true);
    expect(isSelfApproval(alice, { ...alice, name: 'renamed', role: 'admin' })).toBe(true);
    expect(
      isSelfApproval({ id: 'token', name: 'admin', role: 'admin' }, { id: 'token', name: 'admin', role: 'admin' }),
    ).toBe(true);
  });

  it('is not someone else deciding, even with the same name', () => {
    expect(isSelfApproval(alice, bob)).toBe(false);
    expect(isSelfApproval(alice, { ...bob, name: 'alice' })).toBe(false);
  });

  it("is not local mode's person deciding their own call, nor a call without a principal", () => {
    expect(isSelfApproval(LOCAL, LOCAL)).toBe(false);
    expect(isSelfApproval(null, alice)).toBe(false);
    expect(isSelfApproval(null, LOCAL)).toBe(false);
  });
});

describe("the approvals queue's decide", () => {
  it('refuses self_approval, approve or deny, and keeps the call pending', () => {
    const queue = createApprovalQueue();
    const { traceId } = ask(queue, admin);
    expect(queue.decide(traceId, { decision: 'approve' }, admin)).toEqual({ ok: false, reason: 'self_approval' });
    expect(queue.decide(traceId, { decision: 'deny', reason: 'no' }, admin)).toEqual({
      ok: false,
      reason: 'self_approval',
    });
    expect(queue.get(traceId)?.principal).toEqual(admin);
    expect(queue.size).toBe(1);
  });

  it('refuses an "always allow" by the caller before making any rule', () => {
    const made: unknown[] = [];
    const queue = createApprovalQueue({
      allowFromNowOn: (rule) => {
        made.push(rule);
        return 'allow write_file';
      },
    });
    const { traceId } = ask(queue, alice);
    expect(queue.decide(traceId, { decision: 'approve', always: {} }, alice)).toEqual({
      ok: false,
      reason: 'self_approval',
    });
    expect(made).toEqual([]);
  });

  it('lets another principal decide it, recording who', async () => {
    const queue = createApprovalQueue();
    const { traceId, decision } = ask(queue, alice);
    expect(queue.decide(traceId, { decision: 'approve' }, alice).ok).toBe(false);
    expect(queue.decide(traceId, { decision: 'approve' }, bob)).toEqual({ ok: true, ruleCreated: null });
    expect(await decision).toEqual({ approved: true, by: 'bob', byPrincipal: bob });
    expect(queue.size).toBe(0);
  });

  it("lets local mode's person decide their own call", async () => {
    const queue = createApprovalQueue();
    const { traceId, decision } = ask(queue, LOCAL);
    expect(queue.decide(traceId, { decision: 'deny', reason: 'not now' }, LOCAL)).toEqual({
      ok: true,
      ruleCreated: null,
    });
    expect(await decision).toEqual({ approved: false, reason: 'not now', by: 'local', byPrincipal: LOCAL });
  });

  it('lets anyone decide a call without a principal (made before principals)', async () => {
    const queue = createApprovalQueue();
    const { traceId, decision } = ask(queue, null);
    expect(queue.decide(traceId, { decision: 'approve' }, alice).ok).toBe(true);
    expect((await decision).approved).toBe(true);
  });

  it('says not_pending before self_approval for a call that is not waiting', () => {
    expect(createApprovalQueue().decide('trace-none', { decision: 'approve' }, alice)).toEqual({
      ok: false,
      reason: 'not_pending',
    });
  });
});
