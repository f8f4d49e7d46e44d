import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../executor/define-tool';
import type { Toolscope } from '../../server/create-toolscope';
import { testToolscopes } from '../../server/testing/test-toolscopes';
import { type Json, sendJson } from '../testing/call-app';

/**
 * Manual approval through the HTTP layer against a real SQLite file: the queue, decisions, edits,
 * "always allow", the agent's wait, and pending calls across a restart. `write_file` asks by
 * default (its side effect is `write`). A loopback Toolscope without keys is in local mode: every
 * decision is made, and recorded, as the principal `local`.
 */
const toolscopes = testToolscopes('toolscope-approvals-');

const dataDir = (config: object = {}) => toolscopes.dataDir(config);
const { start, restart } = toolscopes;

const writeCall = (id: string, file: string, content: string) => ({
  id,
  type: 'function',
  function: { name: 'write_file', arguments: JSON.stringify({ path: file, content }) },
});

async function post(ts: Toolscope, body: object): Promise<Json> {
  const answer = await sendJson(ts, 'POST', '/api/v1/tool-calls', body);
  expect(answer.status).toBe(200);
  return answer.json;
}

const decide = (ts: Toolscope, traceId: string, body: object) =>
  sendJson(ts, 'POST', `/api/v1/approvals/${encodeURIComponent(traceId)}`, body);

async function approvalsOf(ts: Toolscope): Promise<Json[]> {
  const { status, json } = await sendJson(ts, 'GET', '/api/v1/approvals');
  expect(status).toBe(200);
  expect(json.notify).toBeDefined();
  return json.approvals;
}

async function until<T>(read: () => T | undefined | null | false, what: string, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('the approvals queue through the API', () => {
  it('answers "wait": false at once with the call awaiting approval, lists it, and runs it with edited arguments', async () => {
    const dir = dataDir();
    const ts = start(dir);
    const answer = await post(ts, { wait: false, tool_calls: [writeCall('w1', 'notes/a.md', 'draft')] });
    expect(answer.results[0]).toMatchObject({ tool_call_id: 'w1', status: 'awaiting_approval', success: false });
    expect(answer.messages[0].content).toMatch(
      /waiting for a person to approve it, so it has not run yet\. It expires at \S+Z if no one decides\./,
    );
    const traceId = answer.results[0].trace_id;
    expect(ts.store.get(traceId)?.status).toBe('awaiting_approval');

    const [pending] = await approvalsOf(ts);
    expect(pending).toMatchObject({
      trace_id: traceId,
      tool_call_id: 'w1',
      tool: 'write_file',
      side_effect: 'write',
      arguments: { path: 'notes/a.md', content: 'draft' },
      rule: 'default for write: ask',
      suggested_specifier: 'notes/a.md',
    });
    expect(Date.parse(pending.expires_at) - Date.parse(pending.requested_at)).toBe(10 * 60_000);

    // Invalid edits are refused with the field errors; the call stays pending.
    const bad = await decide(ts, traceId, { decision: 'approve', arguments: { path: 'notes/a.md' } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('INVALID_ARGUMENTS');
    expect(bad.json.error.details.errors).toEqual([expect.objectContaining({ path: 'content' })]);
    expect(bad.json.error.message).toMatch(/content/);
    expect(await approvalsOf(ts)).toHaveLength(1);

    const ok = await decide(ts, traceId, {
      decision: 'approve',
      arguments: { path: 'notes/a.md', content: 'edited by local' },
      reason: 'fixed the wording',
    });
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ id: traceId, tool: 'write_file', rule_created: null });
    expect(['running', 'succeeded']).toContain(ok.json.status);
    const trace = await until(() => {
      const t = ts.store.get(traceId);
      return t?.status === 'succeeded' && t;
    }, 'the approved call');
    expect(fs.readFileSync(path.join(ts.config.workspace, 'notes/a.md'), 'utf8')).toBe('edited by local');
    expect(trace.arguments).toEqual({ path: 'notes/a.md', content: 'draft' });
    expect(trace.editedArguments).toEqual({ path: 'notes/a.md', content: 'edited by local' });
    expect(trace.approval).toMatchObject({ decision: 'approved', by: 'local', reason: 'fixed the wording' });
    const local = { id: 'local', name: 'local', role: 'admin' };
    const traceJson = (await sendJson(ts, 'GET', `/api/v1/traces/${traceId}`)).json;
    expect(traceJson.principal).toEqual(local);
    expect(traceJson.approval).toMatchObject({ decision: 'approved', by: 'local', decided_by: local });
    expect(await approvalsOf(ts)).toEqual([]);

    // Decided already: 409; unknown: 404.
    expect(await decide(ts, traceId, { decision: 'approve' })).toMatchObject({
      status: 409,
      json: { error: { code: 'NOT_PENDING' } },
    });
    expect(await decide(ts, 'no-such-trace', { decision: 'approve' })).toMatchObject({
      status: 404,
      json: { error: { code: 'NOT_FOUND' } },
    });
  });

  it('keeps a recorded secret the edit left masked, and refuses a mask edited around', async () => {
    const ts = start(dataDir());
    const secret = 'sk-live-abcdefghijklmnop1234';
    const answer = await post(ts, {
      wait: false,
      tool_calls: [writeCall('s1', 'env.txt', `API_KEY=${secret}`)],
    });
    const traceId = answer.results[0].trace_id;
    const [pending] = await approvalsOf(ts);
    expect(pending.arguments.content).toBe('API_KEY=[REDACTED]');
    // A mask inside a string the person edited cannot be put back: refused, still pending.
    const around = await decide(ts, traceId, {
      decision: 'approve',
      arguments: { path: 'env.txt', content: 'API_KEY=[REDACTED]\nDEBUG=1' },
    });
    expect(around.status).toBe(400);
    expect(around.json.error.message).toMatch(/content: holds \[REDACTED\]/);
    expect(ts.approvals.get(traceId)).not.toBeNull();
    // Only the path edited: the secret is the recorded one, not the mask.
    const ok = await decide(ts, traceId, {
      decision: 'approve',
      arguments: { ...pending.arguments, path: 'moved.txt' },
    });
    expect(ok.status).toBe(200);
    await until(() => ts.store.get(traceId)?.status === 'succeeded', 'the edited call');
    expect(fs.readFileSync(path.join(ts.config.workspace, 'moved.txt'), 'utf8')).toBe(`API_KEY=${secret}`);
    const trace = ts.store.get(traceId);
    expect(trace?.editedArguments).toEqual({ path: 'moved.txt', content: 'API_KEY=[REDACTED]' });
    expect(JSON.stringify(trace?.editedArguments)).not.toContain(secret);
  });

  it('refuses an edit with a megabyte key with a bounded 400 (message and field errors cut, marked)', async () => {
    const ts = start(dataDir());
    const answer = await post(ts, { wait: false, tool_calls: [writeCall('big', 'big.md', 'x')] });
    const traceId = answer.results[0].trace_id;
    const key = `k${'e'.repeat(1_000_000)}`;
    const bad = await decide(ts, traceId, {
      decision: 'approve',
      arguments: { path: 'big.md', content: 'x', [key]: 1 },
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe('INVALID_ARGUMENTS');
    expect(JSON.stringify(bad.json).length).toBeLessThan(40_000);
    expect(bad.json.error.message).toContain('[truncated ');
    expect(bad.json.error.details.errors[0].path).toContain('[truncated ');
    expect(ts.approvals.get(traceId)).not.toBeNull();
  });

  it('waits for the decision by default, and a denial reason reaches the model', async () => {
    const ts = start(dataDir());
    const answering = post(ts, { tool_calls: [writeCall('w2', 'b.md', 'x')] });
    const [pending] = await until(() => ts.approvals.list().length > 0 && ts.approvals.list(), 'the pending call');
    const denied = await decide(ts, pending?.traceId ?? '', { decision: 'deny', reason: 'write to notes/ instead' });
    expect(denied.status).toBe(200);
    expect(denied.json.status).toBe('denied');
    const answer = await answering;
    expect(answer.results[0]).toMatchObject({ status: 'denied', error: { code: 'PERMISSION_DENIED' } });
    expect(answer.messages[0].content).toContain('denied by local: write to notes/ instead');
    expect(fs.existsSync(path.join(ts.config.workspace, 'b.md'))).toBe(false);
  });

  it('answers after waitMs with calls still pending, the others finished', async () => {
    const ts = start(dataDir({ approvals: { waitMs: 50 } }));
    const calc = { id: 'c', type: 'function', function: { name: 'calculator', arguments: '{"expression":"6*7"}' } };
    const answer = await post(ts, { tool_calls: [writeCall('w3', 'c.md', 'x'), calc] });
    expect(answer.results.map((r: Json) => r.status)).toEqual(['awaiting_approval', 'succeeded']);
    expect(ts.approvals.list()).toHaveLength(1);
  });

  it('"always allow" creates a rule, approves this call, and the next identical call runs unasked', async () => {
    const ts = start(dataDir());
    const first = await post(ts, { wait: false, tool_calls: [writeCall('w4', 'notes/x.md', '1')] });
    const traceId = first.results[0].trace_id;
    const ok = await decide(ts, traceId, { decision: 'approve', always: { specifier: 'notes/**' } });
    expect(ok.status).toBe(200);
    expect(ok.json.rule_created).toBe('write_file(notes/**)');
    expect(ts.policy.rules()).toContainEqual(
      expect.objectContaining({ list: 'allow', rule: 'write_file(notes/**)', source: 'data' }),
    );
    await until(() => ts.store.get(traceId)?.status === 'succeeded', 'the approved call');
    expect(ts.store.get(traceId)?.approval?.ruleCreated).toBe('write_file(notes/**)');
    const next = await post(ts, { wait: false, tool_calls: [writeCall('w5', 'notes/x.md', '2')] });
    expect(next.results[0].status).toBe('succeeded');
    expect(ts.store.get(next.results[0].trace_id)?.stages.find((s) => s.name === 'permission')?.detail).toBe(
      'allow write_file(notes/**)',
    );
    // A bad specifier is a 400 and the call stays pending.
    const other = await post(ts, { wait: false, tool_calls: [writeCall('w6', 'elsewhere.md', '3')] });
    const bad = await decide(ts, other.results[0].trace_id, { decision: 'approve', always: { specifier: '/etc/**' } });
    expect(bad.status).toBe(400);
    expect(ts.approvals.get(other.results[0].trace_id)).not.toBeNull();
  });
});

describe('pending approvals across a restart', () => {
  it('are still listed after a restart, with the same expiry, and approving one runs it from its sealed arguments', async () => {
    const dir = dataDir();
    const first = start(dir);
    const answer = await post(first, {
      wait: false,
      tool_calls: [writeCall('r1', 'after-restart.md', 'secret=sk-live-abcdefghijklmnop1234')],
    });
    const traceId = answer.results[0].trace_id;
    const [before] = await approvalsOf(first);

    const second = await restart(first, dir);
    expect(second.resumedAtStart).toBe(1);
    await until(() => second.approvals.size === 1, 'the call taken up again');
    const [after] = await approvalsOf(second);
    expect(after).toEqual(before);
    expect(second.store.get(traceId)?.status).toBe('awaiting_approval');

    expect((await decide(second, traceId, { decision: 'approve' })).status).toBe(200);
    await until(() => second.store.get(traceId)?.status === 'succeeded', 'the call approved after the restart');
    // The raw arguments ran (the secret was only ever redacted in what is shown).
    expect(fs.readFileSync(path.join(second.config.workspace, 'after-restart.md'), 'utf8')).toBe(
      'secret=sk-live-abcdefghijklmnop1234',
    );
    expect(second.store.get(traceId)?.approval).toMatchObject({ decision: 'approved', by: 'local' });
  });

  it('expire on time after a restart', async () => {
    const dir = dataDir({ approvals: { timeoutMs: 1000 } });
    const first = start(dir);
    const answer = await post(first, { wait: false, tool_calls: [writeCall('r2', 'late.md', 'x')] });
    const traceId = answer.results[0].trace_id;
    const expiresAt = first.store.get(traceId)?.approval?.expiresAt;
    const second = await restart(first, dir);
    await until(
      () => second.approvals.size === 1 || second.store.get(traceId)?.status === 'denied',
      'the call taken up',
    );
    if (second.approvals.size === 1) expect(second.approvals.get(traceId)?.expiresAt).toBe(expiresAt);
    const trace = await until(
      () => {
        const t = second.store.get(traceId);
        return t?.status === 'denied' && t;
      },
      'the expiry',
      5000,
    );
    expect(trace.error).toMatchObject({ code: 'APPROVAL_TIMEOUT', retryable: false });
    expect(trace.approval?.decision).toBe('expired');
    expect(fs.existsSync(path.join(second.config.workspace, 'late.md'))).toBe(false);
  });

  it('a call approved and started before a crash comes back interrupted, never pending or run again', async () => {
    const dir = dataDir();
    let runs = 0;
    const hang = defineTool({
      name: 'hang',
      description: 'Writes, then never finishes (the process "crashes" meanwhile).',
      inputSchema: z.object({}),
      sideEffect: 'write',
      execute: () => {
        runs++;
        return new Promise(() => {});
      },
    });
    const first = start(dir, { tools: [hang] });
    const answer = await post(first, {
      wait: false,
      tool_calls: [{ id: 'h', type: 'function', function: { name: 'hang', arguments: '{}' } }],
    });
    const traceId = answer.results[0].trace_id;
    expect((await decide(first, traceId, { decision: 'approve' })).json.status).toBe('running');
    expect(runs).toBe(1);
    // A crash: no stop, nothing cancelled; the store closes with the call running.
    toolscopes.crash(first);

    const second = start(dir, { tools: [hang] });
    expect(second.resumedAtStart).toBe(0);
    expect(second.store.get(traceId)).toMatchObject({ status: 'interrupted', approval: { decision: 'approved' } });
    expect(await approvalsOf(second)).toEqual([]);
    expect(runs).toBe(1);
  });
});
