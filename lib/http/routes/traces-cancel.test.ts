import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config';
import { createToolscope, type Toolscope } from '../../server/create-toolscope';
import { testToolscopes } from '../../server/testing/test-toolscopes';
import { createHttpApp, type HttpApp } from '../app';
import { appOf, callApp } from '../testing/call-app';

let dataDir: string;
let ts: Toolscope;
let app: HttpApp;

beforeAll(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-cancel-'));
  fs.writeFileSync(
    path.join(dataDir, 'toolscope.config.json'),
    JSON.stringify({ policies: { run_shell: 'allow' }, shell: { allow: ['sh', 'echo'] } }),
  );
  ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: dataDir }, dataDir));
  app = createHttpApp(ts);
});

afterAll(async () => {
  await app.parts.mcp.close();
  await ts.stop({ by: 'test' });
  ts.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/**
 * A POST through the app in process; a body goes as JSON with its `content-length` (the body limit
 * reads a web request's body only when its headers announce one).
 */
function post(path: string, body?: unknown) {
  if (body === undefined) return callApp(app, 'POST', path);
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return callApp(app, 'POST', path, {
    body: text,
    headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) },
  });
}

/** Starts a run_shell call that prints, then waits, through the agents' endpoint; returns the pending response. */
function startSlowCall(id: string) {
  return post('/api/v1/tool-calls', {
    tool_calls: [
      {
        id,
        type: 'function',
        function: {
          name: 'run_shell',
          arguments: JSON.stringify({ command: ['sh', '-c', 'echo started; echo warming >&2; sleep 30'] }),
        },
      },
    ],
  });
}

const getTrace = (id: string) => callApp(app, 'GET', `/api/v1/traces/${id}`);

async function traceIdOf(toolCallId: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const page = ts.store.list({ text: toolCallId });
    const found = page.items.find((item) => item.toolCallId === toolCallId);
    if (found) return found.id;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`no trace for ${toolCallId}`);
}

// biome-ignore lint/suspicious/noExplicitAny: JSON bodies.
async function json(response: Response): Promise<any> {
  return response.json();
}

const cancel = (id: string, body?: unknown) => post(`/api/v1/traces/${id}/cancel`, body);

describe('a running call through the API', () => {
  it('is answered live, then cancelled: recorded CANCELLED, and the waiting agent gets the cancelled result', async () => {
    const agent = startSlowCall('call_slow_1');
    const id = await traceIdOf('call_slow_1');

    let live = await json(await getTrace(id));
    for (let i = 0; i < 200 && !live.stdout?.includes('started'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      live = await json(await getTrace(id));
    }
    expect(live.status).toBe('running');
    expect(live.stdout).toContain('started');
    expect(Date.parse(live.server_time)).toBeGreaterThan(0);
    expect(live.stages.find((s: { name: string }) => s.name === 'execute')).toMatchObject({
      status: 'running',
      duration_ms: 0,
    });
    expect(live.attempts).toEqual([expect.objectContaining({ number: 1, outcome: 'running', timeout_ms: 30_000 })]);
    expect(JSON.stringify(live)).not.toContain('raw_arguments');

    const response = await cancel(id, { by: 'tester', reason: 'took too long' });
    expect(response.status).toBe(200);
    const cancelled = await json(response);
    expect(cancelled).toMatchObject({ id, status: 'cancelled', result: { error: { code: 'CANCELLED' } } });
    // Who cancelled is the request's principal (local mode's person), never the body's `by`.
    expect(cancelled.result.error.details).toMatchObject({
      cancelledBy: 'local',
      cancelledByPrincipal: { id: 'local', name: 'local', role: 'admin' },
      reason: 'took too long',
    });
    expect(cancelled.result.error.message).toBe('Cancelled by local: took too long.');
    expect(ts.store.get(id)?.status).toBe('cancelled');

    const answered = await json(await agent);
    expect(answered.results[0]).toMatchObject({ status: 'cancelled', success: false, error: { code: 'CANCELLED' } });

    const again = await cancel(id);
    expect(again.status).toBe(409);
    expect((await json(again)).error.code).toBe('NOT_RUNNING');
  });

  it('cancels as the principal (`local`) without a body, and answers 404 / 400 for unknown ids and bad bodies', async () => {
    const agent = startSlowCall('call_slow_2');
    const id = await traceIdOf('call_slow_2');
    const wrongType = await cancel(id, '{"by": 3}');
    expect(wrongType.status).toBe(400);
    expect((await json(wrongType)).error.code).toBe('INVALID_REQUEST');
    const notJson = await cancel(id, 'not json');
    expect(notJson.status).toBe(400);
    expect((await json(notJson)).error.code).toBe('INVALID_JSON');
    const response = await cancel(id);
    expect(response.status).toBe(200);
    const cancelled = await json(response);
    expect(cancelled.result.error.details.cancelledBy).toBe('local');
    expect(cancelled.principal).toEqual({ id: 'local', name: 'local', role: 'admin' });
    await agent;
    const unknown = await cancel('no-such-trace');
    expect(unknown.status).toBe(404);
    expect((await json(unknown)).error.code).toBe('NOT_FOUND');
  });
});

describe('who cancelled, with keys', () => {
  const toolscopes = testToolscopes('toolscope-cancel-keys-');

  it("records the cancelling key's principal, not the body's `by`, which is only a reason", async () => {
    const ts = toolscopes.start(
      toolscopes.dataDir({ policies: { run_shell: 'allow' }, shell: { allow: ['sh', 'echo'] } }),
    );
    const app = appOf(ts);
    const bot = ts.access.keys.create({ name: 'bot', role: 'agent' });
    const alice = ts.access.keys.create({ name: 'alice', role: 'reviewer' });
    const aliceRef = { id: alice.key.id, name: 'alice', role: 'reviewer' };
    const send = (token: string, path: string, body?: unknown) => callApp(app, 'POST', path, { token, body });

    // A running call: the error says who cancelled.
    const running = send(bot.token, '/api/v1/tool-calls', {
      tool_calls: [
        {
          id: 'call_keyed_run',
          type: 'function',
          function: { name: 'run_shell', arguments: JSON.stringify({ command: ['sh', '-c', 'sleep 30'] }) },
        },
      ],
    });
    let runId = '';
    for (let i = 0; i < 200 && !runId; i++) {
      runId = ts.store.list({ text: 'call_keyed_run' }).items[0]?.id ?? '';
      if (!runId) await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const first = await send(alice.token, `/api/v1/traces/${runId}/cancel`, { by: 'mallory' });
    expect(first.status).toBe(200);
    const ran = await json(first);
    expect(ran.result.error.details).toMatchObject({
      cancelledBy: 'alice',
      cancelledByPrincipal: aliceRef,
      reason: 'mallory',
    });
    expect(JSON.stringify(ran.result.error.details.cancelledBy)).not.toContain('mallory');
    await running;

    // A call awaiting approval: the approval's record says who, in the form of a decision's.
    const pending = await json(
      await send(bot.token, '/api/v1/tool-calls', {
        wait: false,
        tool_calls: [
          {
            id: 'call_keyed_wait',
            type: 'function',
            function: { name: 'write_file', arguments: JSON.stringify({ path: 'a.txt', content: 'x' }) },
          },
        ],
      }),
    );
    const waitId = pending.results[0].trace_id;
    expect(pending.results[0].status).toBe('awaiting_approval');
    const second = await send(alice.token, `/api/v1/traces/${waitId}/cancel`, { by: 'mallory', reason: 'not now' });
    expect(second.status).toBe(200);
    const waited = await json(second);
    expect(waited.approval).toMatchObject({
      decision: 'cancelled',
      by: 'alice',
      decided_by: aliceRef,
      reason: 'not now',
    });
    expect(waited.result.error.details).toMatchObject({ cancelledBy: 'alice', reason: 'not now' });
    expect(JSON.stringify(waited)).not.toContain('mallory');
  });
});
