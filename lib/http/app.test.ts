import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import type { TraceRecord } from '../executor/types';
import { crowding } from '../hardening/testing/machine-pace';
import { createToolscope, type Toolscope } from '../server/create-toolscope';
import { createHttpApp } from './app';
import { createHttpServer } from './node-server';
import { closeServer, listenOnLoopback } from './testing/listen';

/**
 * The HTTP layer on Node's server, a real loopback port with a real SQLite file, no Next.js: a
 * stand-in answers what would go to Next (it records the paths it got), so the tests see what the
 * layer answers itself and what it hands on.
 */
const MAX_BODY = 64 * 1024;
const BODY_TIMEOUT_MS = 300;

let dir: string;
let ts: Toolscope;
let server: http.Server;
let port: number;
const toNext: string[] = [];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-agent-path-'));
  fs.writeFileSync(
    path.join(dir, 'toolscope.config.json'),
    JSON.stringify({
      limits: { maxBodyBytes: MAX_BODY, bodyTimeoutMs: BODY_TIMEOUT_MS },
      policies: { run_shell: 'allow' },
      shell: { allow: ['sleep'] },
    }),
  );
  ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: dir }, dir));
  const app = createHttpApp(ts, {
    heartbeatMs: 60_000,
    async next(req, res) {
      if (req.url === '/explode') throw new Error('boom (expected by the test)');
      toNext.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('next');
    },
  });
  server = createHttpServer(app, ts.config.limits);
  port = await listenOnLoopback(server);
});

afterAll(async () => {
  await closeServer(server);
  ts.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  // biome-ignore lint/suspicious/noExplicitAny: the tests read answers whose shape they assert on
  json: () => any;
}

function request(
  method: string,
  pathname: string,
  options: { body?: string; headers?: Record<string, string>; agent?: http.Agent } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path: pathname,
        agent: options.agent ?? false,
        headers: {
          ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...options.headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) }),
        );
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A raw socket, to send exactly the bytes a test needs (headers without their body, a stall). */
function rawSocket() {
  const socket = net.connect(port, '127.0.0.1');
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk) => (received += chunk));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  return {
    socket,
    closed,
    received: () => received,
    /** Resolves once a whole response head and the start of its body arrived (or the time is up). */
    async response(timeoutMs = 5_000 * crowding()) {
      const deadline = Date.now() + timeoutMs;
      while (!/\r\n\r\n\{/.test(received) && Date.now() < deadline) await sleep(5);
      return received;
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const statusOf = (head: string) => Number(head.slice(9, 12));
const bodyOf = (raw: string) => JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));

const calculatorCall = (id: string, expression: string) => ({
  id,
  type: 'function',
  function: { name: 'calculator', arguments: JSON.stringify({ expression }) },
});

describe('the request guard', () => {
  it('refuses a foreign Host with 421, a foreign Origin with 403, a body that is not JSON with 415', async () => {
    const body = JSON.stringify({ tool_calls: [calculatorCall('c', '1+1')] });
    const host = await request('POST', '/api/v1/tool-calls', { body, headers: { host: 'evil.example' } });
    expect(host.status).toBe(421);
    expect(host.json()).toMatchObject({ error: { code: 'HOST_NOT_ALLOWED' } });
    const origin = await request('POST', '/api/v1/tool-calls', {
      body,
      headers: { origin: 'https://evil.example' },
    });
    expect(origin.status).toBe(403);
    expect(origin.json()).toMatchObject({ error: { code: 'CROSS_ORIGIN' } });
    const text = await request('POST', '/api/v1/tool-calls', { body, headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
    expect(text.json()).toMatchObject({ error: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
    // The pages are guarded by the same function before Next.js sees them.
    expect((await request('GET', '/', { headers: { host: 'evil.example' } })).status).toBe(421);
    expect(ts.store.list().items).toHaveLength(0);
  });
});

describe('bounded bodies', () => {
  it('refuses a declared Content-Length over the limit with 413 before any byte of the body is sent', async () => {
    const raw = rawSocket();
    raw.socket.write(
      `POST /api/v1/tool-calls HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${2 * 1024 * 1024}\r\n\r\n`,
    );
    const answer = await raw.response();
    expect(statusOf(answer)).toBe(413);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(bodyOf(answer)).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
    await raw.closed;
  });

  it('cuts a chunked body at the limit with 413 and closes the connection', async () => {
    const raw = rawSocket();
    raw.socket.write(
      'POST /api/v1/tool-calls HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
    );
    const chunk = 'x'.repeat(8 * 1024);
    let sent = 0;
    while (!raw.received() && sent < 16 * MAX_BODY && !raw.socket.destroyed) {
      raw.socket.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
      sent += chunk.length;
      await sleep(2);
    }
    const answer = await raw.response();
    expect(statusOf(answer)).toBe(413);
    expect(bodyOf(answer)).toMatchObject({ error: { code: 'PAYLOAD_TOO_LARGE' } });
    expect(sent).toBeLessThan(4 * MAX_BODY);
    raw.socket.destroy();
  });

  it('drops a client that stalls mid-body with 408 after the body timeout', async () => {
    const raw = rawSocket();
    const started = Date.now();
    raw.socket.write(
      'POST /api/v1/tool-calls HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"tool_calls":',
    );
    const answer = await raw.response();
    expect(statusOf(answer)).toBe(408);
    expect(bodyOf(answer)).toMatchObject({ error: { code: 'BODY_TIMEOUT' } });
    await raw.closed;
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 20);
    expect(took).toBeLessThan(BODY_TIMEOUT_MS + 2_000 * crowding());
  });

  it('answers malformed JSON with 400 and keeps the connection', async () => {
    const agent = new http.Agent({ keepAlive: true });
    const answer = await request('POST', '/api/v1/tool-calls', { body: '{"tool_calls": [', agent });
    agent.destroy();
    expect(answer.status).toBe(400);
    expect(answer.json()).toMatchObject({ error: { code: 'INVALID_JSON' } });
    expect(answer.headers.connection).toBe('keep-alive');
    const envelope = await request('POST', '/api/v1/tool-calls', { body: '{"tool_calls": []}' });
    expect(envelope.status).toBe(400);
    expect(envelope.json()).toMatchObject({ error: { code: 'INVALID_REQUEST' } });
  });
});

describe('JSON errors for every /api/ path', () => {
  it('404 for an unknown route, 405 with Allow for a wrong method, 400 for bad percent-encoding', async () => {
    const unknown = await request('GET', '/api/v1/nope');
    expect(unknown.status).toBe(404);
    expect(unknown.json()).toMatchObject({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
    expect((await request('POST', '/api/unknown/deeper')).json().error.code).toBe('NOT_FOUND');

    const wrong = await request('GET', '/api/v1/tool-calls');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe('POST, OPTIONS');
    expect(wrong.json()).toMatchObject({ error: { code: 'METHOD_NOT_ALLOWED' } });
    const put = await request('PUT', '/api/v1/traces/abc');
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBe('GET, DELETE, HEAD, OPTIONS');

    const bad = await request('GET', '/api/v1/traces/%E0%A4%A');
    expect(bad.status).toBe(400);
    expect(bad.json()).toMatchObject({ error: { code: 'BAD_PATH' } });

    const options = await request('OPTIONS', '/api/v1/tool-calls');
    expect(options.status).toBe(204);
    expect(options.headers.allow).toBe('POST, OPTIONS');
  });

  it('serves every API route itself, hands the pages to Next.js, and turns a crash into a logged JSON 500', async () => {
    toNext.length = 0;
    expect((await request('GET', '/api/v1/traces?limit=1')).json()).toMatchObject({ items: expect.any(Array) });
    expect((await request('GET', '/traces/abc')).text).toBe('next');
    expect((await request('GET', '/api/v1/tools?format=anthropic')).json()).toMatchObject({ tools: expect.any(Array) });
    expect(toNext).toEqual(['GET /traces/abc']);
    const crash = await request('GET', '/explode');
    expect(crash.status).toBe(500);
    expect(crash.json()).toMatchObject({ error: { code: 'INTERNAL_ERROR' } });
  });
});

describe('POST /api/v1/tool-calls', () => {
  it('runs a call, answers after it is recorded, and keeps the connection alive', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const sockets = new Set<unknown>();
    const body = (id: string) =>
      JSON.stringify({ session_id: 'lean', tool_calls: [calculatorCall(id, '2 * (3 + 4)')] });
    for (const id of ['k1', 'k2']) {
      const answer = await request('POST', '/api/v1/tool-calls', { body: body(id), agent });
      expect(answer.status).toBe(200);
      expect(answer.headers.connection).toBe('keep-alive');
      const json = answer.json();
      expect(json.results[0]).toMatchObject({ tool_call_id: id, status: 'succeeded', output: { result: 14 } });
      expect(json.messages[0]).toMatchObject({ role: 'tool', tool_call_id: id });
      expect(ts.store.get(json.results[0].trace_id)).toMatchObject({ status: 'succeeded', sessionId: 'lean' });
      for (const list of Object.values(agent.sockets)) for (const socket of list ?? []) sockets.add(socket);
      for (const list of Object.values(agent.freeSockets)) for (const socket of list ?? []) sockets.add(socket);
    }
    expect(sockets.size).toBe(1);
    agent.destroy();
  });

  it('cancels the calls of a client that closes its connection before the answer', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    // The connection first carries an answered request: its signal must not cancel later calls early.
    expect(
      (
        await request('POST', '/api/v1/tool-calls', {
          body: JSON.stringify({ tool_calls: [calculatorCall('first', '1+1')] }),
          agent,
        })
      ).status,
    ).toBe(200);
    const before = new Set(ts.executor.inFlightIds());
    const sleepCall = {
      id: 'gone',
      type: 'function',
      function: { name: 'run_shell', arguments: JSON.stringify({ command: ['sleep', '30'] }) },
    };
    const pending = request('POST', '/api/v1/tool-calls', { body: JSON.stringify({ tool_calls: [sleepCall] }), agent });
    pending.catch(() => {});
    let traceId: string | undefined;
    await waitFor(() => {
      traceId = ts.executor
        .inFlightIds()
        .find((id) => !before.has(id) && ts.executor.inFlight(id)?.tool === 'run_shell');
      return traceId !== undefined && ts.executor.inFlight(traceId)?.attempts.length === 1;
    });
    agent.destroy();
    await waitFor(() => ts.store.get(traceId ?? '')?.status === 'cancelled');
    const record = ts.store.get(traceId ?? '');
    expect(record?.error).toMatchObject({ code: 'CANCELLED' });
    expect(record?.error?.message).toBe('Cancelled by client: the connection closed before the answer.');
  });

  it('takes Anthropic tool_use blocks and answers tool_result blocks beside results, in input order', async () => {
    const block = (id: string, input: unknown) => ({ type: 'tool_use', id, name: 'calculator', input });
    const answer = await request('POST', '/api/v1/tool-calls', {
      body: JSON.stringify({
        session_id: 'lean-anthropic',
        tool_use: [block('toolu_a', { expression: '6 * 7' }), block('toolu_b', { expression: 7 })],
      }),
    });
    expect(answer.status).toBe(200);
    const json = answer.json();
    expect(Object.keys(json).sort()).toEqual(['results', 'tool_results']);
    expect(json.results.map((r: { tool_call_id: string }) => r.tool_call_id)).toEqual(['toolu_a', 'toolu_b']);
    expect(json.results[0]).toMatchObject({ status: 'succeeded', output: { result: 42 } });
    expect(json.tool_results).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_a', content: expect.stringContaining('42'), is_error: false },
      {
        type: 'tool_result',
        tool_use_id: 'toolu_b',
        content: expect.stringContaining('INVALID_ARGUMENTS'),
        is_error: true,
      },
    ]);
    expect(ts.store.get(json.results[0].trace_id)).toMatchObject({
      sessionId: 'lean-anthropic',
      toolCallId: 'toolu_a',
    });
  });

  it('answers 400 naming the field for both forms at once, neither, or a malformed block', async () => {
    const cases: [unknown, RegExp][] = [
      [{ tool_calls: [calculatorCall('x', '1')], tool_use: [] }, /^tool_calls, tool_use: /],
      [{ session_id: 'nothing' }, /^tool_calls: missing; /],
      [{ tool_use: [{ type: 'tool_use', id: 'x', name: 'calculator', input: [1] }] }, /^tool_use\.0\.input: /],
      [{ tool_use: [{ type: 'tool_result', id: 'x', name: 'calculator', input: {} }] }, /^tool_use\.0\.type: /],
    ];
    for (const [body, message] of cases) {
      const answer = await request('POST', '/api/v1/tool-calls', { body: JSON.stringify(body) });
      expect(answer.status).toBe(400);
      expect(answer.json()).toEqual({ error: { code: 'INVALID_REQUEST', message: expect.stringMatching(message) } });
    }
  });
});

/** Opens an event stream and collects its text until `until` says enough (or it ends). */
function openStream(query = '') {
  let text = '';
  let ended = false;
  let req!: http.ClientRequest;
  const opened = new Promise<number>((resolve, reject) => {
    req = http.get({ host: '127.0.0.1', port, path: `/api/v1/events${query}`, agent: false }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => (ended = true));
      res.on('close', () => (ended = true));
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
  });
  return {
    opened,
    text: () => text,
    ended: () => ended,
    count: (needle: string) => text.split(needle).length - 1,
    close: () => req.destroy(),
  };
}

async function waitFor(check: () => boolean, timeoutMs = 10_000 * crowding()) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await sleep(10);
  }
}

describe('GET /api/v1/events', () => {
  it('holds 200 subscribers, each receiving every event; ?tool= and ?trace= filter', async () => {
    const streams = Array.from({ length: 200 }, () => openStream());
    const otherTool = openStream('?tool=read_file');
    expect(await Promise.all(streams.map((s) => s.opened))).toEqual(Array(200).fill(200));
    await otherTool.opened;
    await waitFor(() => streams.every((s) => s.text().includes('event: ping')));
    expect(streams[0]!.text().startsWith('retry: 2000\n\n')).toBe(true);

    const answers = await Promise.all(
      ['e1', 'e2', 'e3'].map((id) =>
        request('POST', '/api/v1/tool-calls', { body: JSON.stringify({ tool_calls: [calculatorCall(id, '6*7')] }) }),
      ),
    );
    const ids = answers.map((a) => a.json().results[0].trace_id as string);
    await waitFor(() => streams.every((s) => s.count('"type":"finish"') === 3));
    for (const stream of streams) {
      for (const id of ids) expect(stream.text()).toContain(`"trace_id":"${id}"`);
    }
    expect(otherTool.count('event: trace')).toBe(0);

    const following = openStream(`?trace=${ids[0]}`);
    await following.opened;
    await request('POST', '/api/v1/tool-calls', { body: JSON.stringify({ tool_calls: [calculatorCall('e4', '1')] }) });
    await waitFor(() => streams[0]!.count('"type":"finish"') === 4);
    expect(following.count('event: trace')).toBe(0);
    for (const stream of [...streams, otherTool, following]) stream.close();
    await waitFor(() => ts.events.listenerCount() === 0);
  });

  it('writes the events of concurrent calls to 200 streams in batches: the same bytes to each, every begin and finish', async () => {
    const streams = Array.from({ length: 200 }, () => openStream());
    await Promise.all(streams.map((s) => s.opened));
    await waitFor(() => streams.every((s) => s.text().includes('event: ping')));
    const calls = 120;
    await Promise.all(
      Array.from({ length: calls }, (_, i) =>
        request('POST', '/api/v1/tool-calls', {
          body: JSON.stringify({ tool_calls: [calculatorCall(`b${i}`, `${i} * 2`)] }),
        }),
      ),
    );
    await waitFor(() => streams.every((s) => s.count('"type":"finish"') === calls));
    const traceFrames = (text: string) =>
      text
        .split('\n\n')
        .filter((frame) => frame.includes('\nevent: trace\n'))
        .join('\n\n');
    const first = traceFrames(streams[0]!.text());
    // Every begin and finish; a stage of a call still running at a flush may come too.
    expect(first.split('"type":"begin"')).toHaveLength(calls + 1);
    expect(first.split('"type":"finish"')).toHaveLength(calls + 1);
    for (const stream of streams) {
      expect(stream.count('"type":"begin"')).toBe(calls);
      expect(traceFrames(stream.text())).toBe(first);
    }
    expect(first).toMatch(/^id: \d+\nevent: trace\ndata: /);
    expect(JSON.parse(first.split('data: ')[1]!.split('\n')[0]!)).toEqual({
      type: 'begin',
      trace_id: expect.any(String),
      tool: 'calculator',
      status: 'running',
      session_id: null,
      at: expect.any(Number),
    });
    for (const stream of streams) stream.close();
    await waitFor(() => ts.events.listenerCount() === 0);
  });

  it('drops a stream more than 1 MiB behind, and keeps the ones that read', async () => {
    const reading = openStream('?tool=nothing-matches');
    await reading.opened;
    const stalled = rawSocket();
    stalled.socket.write('GET /api/v1/events HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
    await waitFor(() => stalled.received().includes('event: ping'));
    stalled.socket.pause();
    expect(ts.events.listenerCount()).toBe(2);
    // Loopback socket buffers take a few MB before the server's own queue grows.
    for (let batch = 0; batch < 500 && ts.events.listenerCount() === 2; batch++) {
      for (let i = 0; i < 500; i++) {
        ts.events.publish(
          { id: `slow-${batch}-${i}`, tool: 'calculator', status: 'running', sessionId: null } as TraceRecord,
          'begin',
        );
      }
      ts.events.flush();
      await sleep(1);
    }
    await waitFor(() => ts.events.listenerCount() === 1);
    stalled.socket.resume();
    await stalled.closed;
    expect(reading.ended()).toBe(false);
    reading.close();
    await waitFor(() => ts.events.listenerCount() === 0);
  });

  it('ends every stream when the bus closes (shutdown)', async () => {
    const streams = Array.from({ length: 5 }, () => openStream());
    await Promise.all(streams.map((s) => s.opened));
    ts.events.closeAll();
    await waitFor(() => streams.every((s) => s.ended()));
  });
});
