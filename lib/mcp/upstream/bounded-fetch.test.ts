import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_ERROR_MESSAGE_CHARS } from '../../executor/bound-error';
import { crowding } from '../../hardening/testing/machine-pace';
import type { Toolscope } from '../../server/create-toolscope';
import { testToolscopes } from '../../server/testing/test-toolscopes';
import { createBoundedFetch, MAX_ERROR_BODY_BYTES, OversizedAnswerError } from './bounded-fetch';
import { OVERSIZED_MESSAGE_CODE } from './line-reader';

/**
 * The fetch that bounds what an upstream HTTP MCP server answers, against real servers on
 * loopback: a small one here that writes exactly the bytes each test needs (endless bodies
 * included), and the fixture server (`lib/hardening/testing/http-mcp-server.mjs`) behind a
 * Toolscope's upstream client.
 */
const LIMIT = 256 * 1024;

/** What the loopback server answers, by path; `closed` counts the answers whose client hung up before their end. */
type Handler = (res: http.ServerResponse) => void;
const handlers = new Map<string, Handler>();
let hungUp = 0;
let server: http.Server;
let base = '';

/** Writes `chunk` until the client hangs up. */
function forever(res: http.ServerResponse, head: string, chunk = Buffer.alloc(16 * 1024, 'a')): void {
  res.write(head);
  const pump = () => {
    while (!res.destroyed) if (!res.write(chunk)) return void res.once('drain', pump);
  };
  pump();
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    res.on('close', () => {
      if (!res.writableFinished) hungUp++;
    });
    req.resume();
    handlers.get(req.url ?? '')?.(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const bounded = createBoundedFetch(LIMIT);
/** A POST of JSON-RPC request `id`, as the SDK writes it (the id last). */
const post = (url: string, id: number | string = 7) =>
  bounded(`${base}${url}`, {
    method: 'POST',
    body: JSON.stringify({ method: 'tools/call', params: { name: 'x' }, jsonrpc: '2.0', id }),
  });

async function eventsOf(response: Response): Promise<{ event?: string; data: string }[]> {
  const events: { event?: string; data: string }[] = [];
  const reader = (response.body as unknown as ReadableStream<BufferSource>)
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return events;
    events.push({ event: value.event, data: value.data });
  }
}

/** Polls `check` until it holds; 2 s on the reference machine at rest, stretched by the machine's crowding. */
const until = async (what: string, check: () => boolean) => {
  const deadline = performance.now() + 2_000 * crowding();
  while (!check() && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
};

describe('createBoundedFetch', () => {
  it('passes a JSON answer within the bound as it came', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: 'x'.repeat(LIMIT - 100) } });
    handlers.set('/json-ok', (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(body));
    const response = await post('/json-ok');
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(body);
  });

  it('errors an endless JSON answer OUTPUT_LIMIT-coded at the bound, and hangs up on it', async () => {
    handlers.set('/json-endless', (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      forever(res, '{"jsonrpc":"2.0","id":7,"result":{"text":"');
    });
    const before = hungUp;
    const response = await post('/json-endless');
    const error = await response.json().then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(OversizedAnswerError);
    expect(error).toMatchObject({ code: OVERSIZED_MESSAGE_CODE, data: { limit_bytes: LIMIT } });
    expect((error as OversizedAnswerError).data.bytes).toBeGreaterThan(LIMIT);
    expect((error as OversizedAnswerError).data.bytes).toBeLessThan(LIMIT + 128 * 1024);
    await until('the server to see the client hang up', () => hungUp > before);
  });

  it('cuts the body of an error answer to MAX_ERROR_BODY_BYTES, however long it runs', async () => {
    handlers.set('/error-endless', (res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      forever(res, 'upstream broke: ');
    });
    const response = await post('/error-endless');
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text.startsWith('upstream broke: aaa')).toBe(true);
    expect(text.length).toBe(MAX_ERROR_BODY_BYTES);
  });

  it('passes an SSE stream of many events, far more than the bound in all, each within it (LF and CRLF)', async () => {
    const event = (i: number) => `id: ${i}\ndata: {"n":${i},"pad":"${'p'.repeat(1000)}"}\n\n`;
    const crlf = (i: number) => `data: {"n":${i}}\r\n\r\n`;
    handlers.set('/sse-many', (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let i = 0; i < 1_000; i++) res.write(i % 2 === 0 ? event(i) : crlf(i));
      res.end();
    });
    const events = await eventsOf(await post('/sse-many'));
    expect(events).toHaveLength(1_000);
    expect(JSON.parse(events[999]?.data ?? '{}').n).toBe(999);
  });

  it('answers the POST of an endless SSE event with the JSON-RPC error for its request, then ends the stream', async () => {
    handlers.set('/sse-endless', (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{}}\n\n');
      forever(res, 'event: message\ndata: {"jsonrpc":"2.0","id":"req-9","result":{"text":"');
    });
    const before = hungUp;
    const events = await eventsOf(await post('/sse-endless', 'req-9'));
    expect(events.map((e) => e.event)).toEqual(['message', 'toolscope-oversized', undefined]);
    // What came of the oversized event is bounded, and dropped as an event the SDK does not read.
    expect(events[1]?.data.length).toBeLessThanOrEqual(LIMIT);
    const answer = JSON.parse(events[2]?.data ?? '{}');
    expect(answer).toMatchObject({
      jsonrpc: '2.0',
      id: 'req-9',
      error: { code: OVERSIZED_MESSAGE_CODE, data: { limit_bytes: LIMIT } },
    });
    expect(answer.error.message).toMatch(
      /^its answer was over the 0\.25 MiB an MCP message may hold \(stopped at \d+ bytes\)$/,
    );
    await until('the server to see the client hang up', () => hungUp > before);
  });

  it('errors a GET stream (no request of its own) at an oversized event, and opens it there no more', async () => {
    handlers.set('/sse-get', (res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      forever(res, 'data: ');
    });
    const fetchOnce = createBoundedFetch(LIMIT);
    const response = await fetchOnce(`${base}/sse-get`, { headers: { 'last-event-id': '41' } });
    await expect(eventsOf(response)).rejects.toBeInstanceOf(OversizedAnswerError);
    // Opening it again where it overflowed is refused at once (the SDK stops at a 405); elsewhere it opens.
    const again = await fetchOnce(`${base}/sse-get`, { headers: { 'last-event-id': '41' } });
    expect(again.status).toBe(405);
    const fresh = await fetchOnce(`${base}/sse-get`);
    expect(fresh.status).toBe(200);
    await fresh.body?.cancel();
  });
});

/** The fixture server behind a Toolscope's upstream client (its default bound, 10 MiB). */
describe('an upstream HTTP server answering without end', () => {
  const toolscopes = testToolscopes('toolscope-bounded-fetch-');
  const FIXTURE = path.resolve('lib/hardening/testing/http-mcp-server.mjs');
  let child: ChildProcess;
  let port = 0;
  let ts: Toolscope;

  beforeAll(async () => {
    child = spawn(process.execPath, [FIXTURE], { stdio: ['ignore', 'pipe', 'inherit'] });
    port = await new Promise<number>((resolve, reject) => {
      child.stdout?.on('data', (chunk: Buffer) => {
        const match = /listening (\d+)/.exec(chunk.toString());
        if (match) resolve(Number(match[1]));
      });
      child.once('exit', (code) => reject(new Error(`the fixture exited with ${code}`)));
    });
  }, 30_000);

  afterAll(() => {
    child?.kill();
  });

  /** A Toolscope connected to the fixture (closed after each test). */
  beforeEach(async () => {
    ts = toolscopes.start(
      toolscopes.dataDir({
        mcp: { servers: { web: { url: `http://127.0.0.1:${port}/mcp`, timeout_ms: 20_000, trustAnnotations: true } } },
      }),
    );
    await until('web connected', () => ts.upstream.get('web')?.state === 'connected');
  });

  const call = (name: string, args: object) => ts.executor.execute({ name: `web__${name}`, arguments: args });

  for (const sse of [false, true]) {
    const form = sse ? 'an SSE event' : 'a JSON body';
    it(`fails the call OUTPUT_LIMIT at 10 MiB of ${form}, long before its timeout, and stays connected`, async () => {
      // Not left to its 20 s timeout: that would be TIMEOUT, not OUTPUT_LIMIT.
      const result = await call('endless', { sse });
      expect(result.error).toMatchObject({
        code: 'OUTPUT_LIMIT',
        kind: 'limit',
        details: { limit_bytes: 10 * 1024 * 1024 },
      });
      expect(result.error?.message).toMatch(
        /^The MCP server "web" answered too much: its answer was over the 10 MiB an MCP message may hold \(stopped at \d+ bytes\)\.$/,
      );
      // The fixture stopped writing: Toolscope hung up instead of reading on. The fixture (another
      // process) may hear of the hang-up after it answers the next call: asked again for a while.
      let written = JSON.parse((await call('written', {})).output as string);
      for (let i = 0; i < 50 && !written.closed; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        written = JSON.parse((await call('written', {})).output as string);
      }
      expect(written).toMatchObject({ closed: true });
      expect(ts.upstream.get('web')?.state).toBe('connected');
      expect((await call('echo', { text: 'still here', sse })).output).toBe('still here');
    }, 30_000);
  }

  it('keeps a 5 MB error result and a 5 MB JSON-RPC error within their bounds', async () => {
    const result = await call('huge_error', { chars: 5_000_000, blocks: 20_000, sse: true });
    expect(result.error?.code).toBe('UPSTREAM_TOOL_ERROR');
    expect(result.error?.message.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_CHARS);
    expect(JSON.stringify(result.error?.details).length).toBeLessThan(20_000);
    const rpc = await call('rpc_error', { chars: 5_000_000 });
    expect(rpc.error).toMatchObject({ code: 'UPSTREAM_ERROR', kind: 'parameter' });
    expect(rpc.error?.message.length).toBeLessThanOrEqual(MAX_ERROR_MESSAGE_CHARS);
    expect(JSON.stringify(ts.store.get(rpc.traceId)).length).toBeLessThan(8 * MAX_ERROR_MESSAGE_CHARS);
  }, 30_000);
});
