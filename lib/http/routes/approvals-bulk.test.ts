import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Toolscope } from '../../server/create-toolscope';
import { testToolscopes } from '../../server/testing/test-toolscopes';
import { appOf, callApp, type Json, sendJson } from '../testing/call-app';

/**
 * `POST /api/v1/approvals/bulk` through the real app on a real SQLite file: every call waiting in
 * one batch or one session decided with one decision and one reason, each as a decision of its
 * own (the role check, the self-approval rule, one audit entry per call), what cannot be decided
 * skipped with its code. `write_file` asks by default.
 */
const toolscopes = testToolscopes('toolscope-approvals-bulk-');

const write = (id: string, file: string, content = 'x') => ({
  id,
  type: 'function',
  function: { name: 'write_file', arguments: JSON.stringify({ path: file, content }) },
});

/** One request of calls that wait (`"wait": false`): their trace ids. */
async function pendingBatch(
  ts: Toolscope,
  calls: object[],
  options: { session?: string; token?: string; message?: string } = {},
): Promise<string[]> {
  const response = await callApp(appOf(ts), 'POST', '/api/v1/tool-calls', {
    token: options.token,
    body: {
      wait: false,
      ...(options.session ? { session_id: options.session } : {}),
      ...(options.message ? { assistant_message: { text: options.message, model: 'gpt-test' } } : {}),
      tool_calls: calls,
    },
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as Json;
  for (const result of body.results) expect(result.status).toBe('awaiting_approval');
  return body.results.map((result: Json) => result.trace_id);
}

async function bulk(ts: Toolscope, body: unknown, token?: string) {
  const response = await callApp(appOf(ts), 'POST', '/api/v1/approvals/bulk', { token, body });
  return { status: response.status, json: (await response.json()) as Json };
}

async function until<T>(read: () => T | undefined | null | false, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const pendingIds = (ts: Toolscope) => ts.approvals.list().map((entry) => entry.traceId);
const decisionsAudited = (ts: Toolscope) =>
  ts.access.audit.list({ kind: 'approval.decided', limit: 500 }).entries.map((entry) => entry.target);

describe('bulk decisions', () => {
  it('approves every call of one batch with one reason, each recorded and audited; other batches wait', async () => {
    const ts = toolscopes.start(toolscopes.dataDir());
    const batch = await pendingBatch(
      ts,
      [write('b1', 'notes/1.txt', 'one'), write('b2', 'notes/2.txt', 'two'), write('b3', 'notes/3.txt', 'three')],
      { session: 'run-1', message: 'Writing the three notes.' },
    );
    const [other] = await pendingBatch(ts, [write('b4', 'notes/4.txt')], { session: 'run-1' });
    const [elsewhere] = await pendingBatch(ts, [write('b5', 'notes/5.txt')], { session: 'run-2' });

    const listed = (await sendJson(ts, 'GET', '/api/v1/approvals')).json.approvals as Json[];
    const batchId = listed.find((entry) => entry.trace_id === batch[0]).batch_id;
    expect(batchId).toEqual(expect.any(String));
    expect(listed.filter((entry) => entry.batch_id === batchId).map((entry) => entry.trace_id)).toEqual(batch);

    const answer = await bulk(ts, { decision: 'approve', reason: 'the notes are fine', batch_id: batchId });
    expect(answer).toEqual({ status: 200, json: { decided: batch, skipped: [] } });
    for (const [index, id] of batch.entries()) {
      const trace = await until(() => {
        const stored = ts.store.get(id);
        return stored?.status === 'succeeded' && stored;
      }, `call ${id}`);
      expect(trace.approval).toMatchObject({ decision: 'approved', by: 'local', reason: 'the notes are fine' });
      const file = path.join(ts.config.workspace, `notes/${index + 1}.txt`);
      expect(fs.readFileSync(file, 'utf8')).toBe(['one', 'two', 'three'][index]);
    }
    expect(pendingIds(ts).sort()).toEqual([other, elsewhere].sort());

    const entries = ts.access.audit.list({ kind: 'approval.decided' }).entries;
    expect(entries.map((entry) => entry.target).sort()).toEqual([...batch].sort());
    for (const entry of entries) {
      expect(entry.detail).toMatchObject({
        decision: 'approve',
        reason: 'the notes are fine',
        tool: 'write_file',
        bulk: { batch_id: batchId },
      });
    }
  });

  it("denies every call of one session with the reason the model reads, leaving other sessions' calls", async () => {
    const ts = toolscopes.start(toolscopes.dataDir());
    const first = await pendingBatch(ts, [write('s1', 'a.txt'), write('s2', 'b.txt')], { session: 'run-7' });
    const second = await pendingBatch(ts, [write('s3', 'c.txt')], { session: 'run-7' });
    const [elsewhere] = await pendingBatch(ts, [write('s4', 'd.txt')], { session: 'run-8' });

    const answer = await bulk(ts, { decision: 'deny', reason: 'Write to notes/ instead.', session_id: 'run-7' });
    expect(answer.status).toBe(200);
    expect(answer.json.decided).toEqual([...first, ...second]);
    for (const id of [...first, ...second]) {
      const trace = await until(() => {
        const stored = ts.store.get(id);
        return stored?.status === 'denied' && stored;
      }, `denial of ${id}`);
      expect(trace.error?.message).toContain('Write to notes/ instead.');
    }
    expect(pendingIds(ts)).toEqual([elsewhere]);
    expect(decisionsAudited(ts)).toHaveLength(3);

    // Nothing left there: nothing decided, nothing skipped.
    expect(await bulk(ts, { decision: 'approve', session_id: 'run-7' })).toEqual({
      status: 200,
      json: { decided: [], skipped: [] },
    });
  });

  it('decides as the key that asks: a viewer may not, and nobody decides their own calls', async () => {
    const ts = toolscopes.start(toolscopes.dataDir());
    const bot = ts.access.keys.create({ name: 'bot', role: 'agent' });
    const boss = ts.access.keys.create({ name: 'boss', role: 'admin' });
    const alice = ts.access.keys.create({ name: 'alice', role: 'reviewer' });
    const viewer = ts.access.keys.create({ name: 'vera', role: 'viewer' });
    const bots = await pendingBatch(ts, [write('k1', 'k1.txt'), write('k2', 'k2.txt')], {
      session: 'shared',
      token: bot.token,
    });
    const [own] = await pendingBatch(ts, [write('k3', 'k3.txt')], { session: 'shared', token: boss.token });

    const refused = await bulk(ts, { decision: 'approve', session_id: 'shared' }, viewer.token);
    expect(refused.status).toBe(403);
    expect(refused.json.error.code).toBe('FORBIDDEN');
    expect(pendingIds(ts)).toHaveLength(3);

    const answer = await bulk(ts, { decision: 'approve', reason: 'ok', session_id: 'shared' }, boss.token);
    expect(answer.status).toBe(200);
    expect(answer.json.decided).toEqual(bots);
    expect(answer.json.skipped).toEqual([{ id: own, code: 'SELF_APPROVAL', message: expect.stringContaining('boss') }]);
    expect(pendingIds(ts)).toEqual([own]);
    const audited = ts.access.audit.list({ kind: 'approval.decided' }).entries;
    expect(audited.map((entry) => entry.target).sort()).toEqual([...bots].sort());
    expect(audited.every((entry) => entry.principal.name === 'boss')).toBe(true);
    await until(() => bots.every((id) => ts.store.get(id)?.approval?.decidedBy?.name === 'boss'), 'the decisions');

    // Someone else decides it.
    const byAlice = await bulk(ts, { decision: 'deny', session_id: 'shared' }, alice.token);
    expect(byAlice.json).toEqual({ decided: [own], skipped: [] });
  });

  it('answers 400 for a body that does not say one decision for one batch or one session', async () => {
    const ts = toolscopes.start(toolscopes.dataDir());
    await pendingBatch(ts, [write('x1', 'x.txt')], { session: 's' });
    for (const body of [
      { decision: 'approve' },
      { decision: 'approve', batch_id: 'b', session_id: 's' },
      { decision: 'maybe', session_id: 's' },
      { decision: 'approve', session_id: '' },
      { decision: 'approve', session_id: 's', arguments: {} },
      { decision: 'deny', session_id: 's', reason: 'x'.repeat(2001) },
      ['approve'],
    ]) {
      const answer = await bulk(ts, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.json.error.code).toBe('INVALID_REQUEST');
    }
    expect(pendingIds(ts)).toHaveLength(1);
    expect(decisionsAudited(ts)).toEqual([]);
  });
});

describe('what a person reads of a pending call', () => {
  it("lists each call with its batch's message, the tool's summary and its preview (a diff against the disk)", async () => {
    const ts = toolscopes.start(toolscopes.dataDir());
    fs.mkdirSync(path.join(ts.config.workspace, 'notes'), { recursive: true });
    fs.writeFileSync(path.join(ts.config.workspace, 'notes/todo.md'), 'buy milk\ncall mom\n');
    const [edit, create] = await pendingBatch(
      ts,
      [write('p1', 'notes/todo.md', 'buy milk\ncall dad\n'), write('p2', 'notes/new.md', 'hello\n')],
      { session: 'why', message: 'Fixing the todo list.' },
    );
    const listed = (await sendJson(ts, 'GET', '/api/v1/approvals')).json.approvals as Json[];
    const byId = new Map(listed.map((entry) => [entry.trace_id, entry]));
    expect(byId.get(edit)).toMatchObject({
      summary: 'notes/todo.md (2 lines)',
      assistant_message: { text: 'Fixing the todo list.', model: 'gpt-test', truncated: false },
      preview: {
        kind: 'file',
        path: 'notes/todo.md',
        lines: 2,
        content: { text: 'buy milk\ncall dad\n', omitted: 0 },
        change: {
          kind: 'diff',
          added: 1,
          removed: 1,
          lines: [
            { kind: 'same', text: 'buy milk', oldNo: 1, newNo: 1 },
            { kind: 'removed', text: 'call mom', oldNo: 2, newNo: null },
            { kind: 'added', text: 'call dad', oldNo: null, newNo: 2 },
          ],
        },
      },
    });
    expect(byId.get(create)).toMatchObject({ preview: { kind: 'file', change: { kind: 'new' } } });
    expect(byId.get(create).batch_id).toBe(byId.get(edit).batch_id);

    // The list row and the trace carry the summary and the preview too.
    const rows = (await sendJson(ts, 'GET', '/api/v1/traces?session=why')).json.items as Json[];
    expect(rows.map((row) => row.summary).sort()).toEqual(['notes/new.md (1 line)', 'notes/todo.md (2 lines)']);
    const trace = (await sendJson(ts, 'GET', `/api/v1/traces/${edit}`)).json;
    expect(trace.preview).toMatchObject({ kind: 'file', path: 'notes/todo.md', change: null });
  });

  it('previews from the redacted arguments only: a secret never reaches the summary or the preview', async () => {
    const ts = toolscopes.start(toolscopes.dataDir({ policies: { http_request: 'ask' } }));
    const secret = 'sk-live-abcdefghijklmnop9999';
    await pendingBatch(ts, [
      {
        id: 'h1',
        type: 'function',
        function: {
          name: 'http_request',
          arguments: JSON.stringify({
            url: 'http://127.0.0.1:9/items',
            method: 'POST',
            headers: { Authorization: `Bearer ${secret}` },
            body: `{"key":"${secret}"}`,
          }),
        },
      },
    ]);
    const answer = await sendJson(ts, 'GET', '/api/v1/approvals');
    const [pending] = answer.json.approvals as Json[];
    expect(pending.summary).toBe('POST 127.0.0.1:9/items');
    expect(pending.preview).toMatchObject({
      kind: 'request',
      method: 'POST',
      url: 'http://127.0.0.1:9/items',
      headers: [{ name: 'Authorization', value: '[REDACTED]' }],
    });
    expect(JSON.stringify(answer.json)).not.toContain(secret);
  });
});
