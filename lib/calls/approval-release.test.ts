import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../executor/define-tool';
import { appOf, callApp, type Json } from '../http/testing/call-app';
import { type ServedToolscope, serveToolscope } from '../http/testing/serve-toolscope';
import type { Toolscope } from '../server/create-toolscope';
import { testToolscopes } from '../server/testing/test-toolscopes';

/**
 * Calls that wait for a person, over HTTP: a client that goes away releases its calls instead of
 * cancelling them, and a call approved and still running when the request stops waiting is
 * reported `running`. Real loopback HTTP, the real executor and approvals queue, real SQLite.
 */
const toolscopes = testToolscopes('toolscope-release-');
let served: ServedToolscope | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

async function until<T>(read: () => T | null | undefined | false | Promise<T | null>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Sends a POST over a connection of its own; `drop` destroys the socket, as a client timing out does. */
function postOverSocket(baseUrl: string, pathname: string, body: unknown) {
  const request = http.request(`${baseUrl}${pathname}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    agent: false,
  });
  request.on('error', () => {});
  request.end(JSON.stringify(body));
  return { drop: () => request.destroy() };
}

/** Connections the server still holds open. */
const connections = (server: http.Server) =>
  new Promise<number>((resolve, reject) =>
    server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );

describe('a client that goes away while its call waits for a person', () => {
  it('releases the call: it stays pending, runs once approved (200, not 409), and its result is stored', async () => {
    served = await serveToolscope();
    const { ts, baseUrl, server } = served;
    const client = postOverSocket(baseUrl, '/api/v1/tool-calls', {
      session_id: 's-gone',
      tool_calls: [
        {
          id: 'call_gone',
          type: 'function',
          function: { name: 'write_file', arguments: JSON.stringify({ path: 'released.txt', content: 'once\n' }) },
        },
      ],
    });
    const traceId = await until(() => ts.approvals.list()[0]?.traceId);
    client.drop();
    await until(async () => (await connections(server)) === 0 || null);
    // The close has reached the call by now: it would have been cancelled at once.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ts.store.get(traceId)?.status).toBe('awaiting_approval');
    expect(ts.approvals.list().map((pending) => pending.traceId)).toEqual([traceId]);

    const decided = await fetch(`${baseUrl}/api/v1/approvals/${traceId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'approve' }),
    });
    expect(decided.status).toBe(200);
    const trace = await until(() => {
      const stored = ts.store.get(traceId);
      return stored?.status === 'succeeded' ? stored : null;
    });
    expect(trace).toMatchObject({ error: null, approval: { decision: 'approved' } });
    expect(fs.readFileSync(path.join(ts.config.workspace, 'released.txt'), 'utf8')).toBe('once\n');
    expect(ts.executor.inFlightIds()).toEqual([]);
  });

  it('still cancels a call that never waited for a person, and an explicit cancel still cancels', async () => {
    served = await serveToolscope({ policies: { run_shell: 'allow' }, shell: { allow: ['sleep'] } });
    const { ts, baseUrl } = served;
    const client = postOverSocket(baseUrl, '/api/v1/tool-calls', {
      tool_calls: [
        {
          id: 'call_sleep',
          type: 'function',
          function: { name: 'run_shell', arguments: JSON.stringify({ command: ['sleep', '30'] }) },
        },
      ],
    });
    const running = await until(() =>
      ts.executor.inFlightIds().find((id) => ts.executor.inFlight(id)?.attempts.length === 1),
    );
    client.drop();
    const cancelled = await until(() => {
      const stored = ts.store.get(running);
      return stored?.status === 'cancelled' ? stored : null;
    });
    expect(cancelled.error?.details).toMatchObject({ cancelledBy: 'client' });

    const pending = (await (
      await fetch(`${baseUrl}/api/v1/tool-calls`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          wait: false,
          tool_calls: [
            {
              id: 'call_cancel_me',
              type: 'function',
              function: { name: 'write_file', arguments: JSON.stringify({ path: 'never.txt', content: 'x' }) },
            },
          ],
        }),
      })
    ).json()) as Json;
    const cancel = await fetch(`${baseUrl}/api/v1/traces/${pending.results[0].trace_id}/cancel`, { method: 'POST' });
    expect(cancel.status).toBe(200);
    expect(ts.store.get(pending.results[0].trace_id)).toMatchObject({
      status: 'cancelled',
      approval: { decision: 'cancelled' },
    });
    expect(ts.approvals.list()).toEqual([]);
  });
});

describe('a call approved and still running when the request stops waiting', () => {
  /** Lets the running call end: what the test holds it with. */
  let letItEnd = () => {};
  const runs: string[] = [];
  const slowWrite = defineTool({
    name: 'slow_write',
    description: 'Writes, slowly.',
    sideEffect: 'write',
    inputSchema: z.object({ note: z.string() }),
    execute: async ({ note }) => {
      runs.push(note);
      await new Promise<void>((resolve) => {
        letItEnd = resolve;
      });
      return { wrote: note };
    },
  });

  async function approve(ts: Toolscope, traceId: string) {
    const response = await callApp(appOf(ts), 'POST', `/api/v1/approvals/${traceId}`, {
      body: { decision: 'approve' },
    });
    expect(response.status).toBe(200);
  }

  it('is reported running, never "has not run yet"; a repeat of it says so too, and its outcome is stored', async () => {
    runs.length = 0;
    const ts = toolscopes.start(toolscopes.dataDir({ approvals: { waitMs: 1_500 } }), { tools: [slowWrite] });
    const body = {
      session_id: 's-running',
      tool_use: [{ type: 'tool_use', id: 'toolu_01slow', name: 'slow_write', input: { note: 'n' } }],
    };
    const answer = callApp(appOf(ts), 'POST', '/api/v1/tool-calls', { body });
    const traceId = await until(() => ts.approvals.list()[0]?.traceId);
    await approve(ts, traceId);
    await until(() => runs.length === 1);
    const json = (await (await answer).json()) as Json;
    expect(json.results[0]).toMatchObject({
      trace_id: traceId,
      status: 'running',
      success: false,
      error: null,
      attempts: 1,
    });
    const [block] = json.tool_results;
    expect(block.is_error).toBe(false);
    expect(block.content).toContain('was approved by local and is running now');
    expect(block.content).toContain(`GET /api/v1/traces/${traceId}`);
    expect(block.content).not.toContain('has not run');

    // The same call again: still running, not run twice.
    const repeat = (await (
      await callApp(appOf(ts), 'POST', '/api/v1/tool-calls', { body: { ...body, wait: false } })
    ).json()) as Json;
    expect(repeat.results[0]).toMatchObject({
      trace_id: traceId,
      status: 'running',
      metadata: { deduplicated: true },
    });

    letItEnd();
    await until(() => ts.store.get(traceId)?.status === 'succeeded');
    expect(runs).toEqual(['n']);
  });
});
