import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config';
import { createToolscope, type Toolscope } from '../../server/create-toolscope';
import { createHttpApp, type HttpApp } from '../app';
import { callApp } from '../testing/call-app';

/** `POST /api/v1/tool-calls` through the HTTP layer's app, against a real SQLite file and the real executor. */
let dataDir: string;
let ts: Toolscope;
let app: HttpApp;

beforeAll(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-api-'));
  ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: dataDir }, dataDir));
  app = createHttpApp(ts);
});

afterAll(() => {
  ts.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Local mode's one person: who every request here acts as. */
const LOCAL = { id: 'local', name: 'local', role: 'admin' };

/** `POST /api/v1/tool-calls` with `body` as JSON (a string as it is). */
const post = (body: unknown, headers: Record<string, string> = {}) =>
  callApp(app, 'POST', '/api/v1/tool-calls', { body, headers });

const getTrace = (id: string) => callApp(app, 'GET', `/api/v1/traces/${id}`);

function call(id: string, name: string, args: unknown) {
  return {
    id,
    type: 'function',
    function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
  };
}

describe('POST /api/v1/tool-calls', () => {
  it('gives the calls of one request one batch id, and says in the trace whether it is a replay and of what', async () => {
    const first = await (
      await post({
        tool_calls: [call('b1', 'calculator', { expression: '1+1' }), call('b2', 'calculator', { expression: '2+2' })],
      })
    ).json();
    const second = await (await post({ tool_calls: [call('b3', 'calculator', { expression: '3+3' })] })).json();
    const traces = await Promise.all(
      [...first.results, ...second.results].map(async (r: { trace_id: string }) => (await getTrace(r.trace_id)).json()),
    );
    expect(traces[0].batch_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(traces[1].batch_id).toBe(traces[0].batch_id);
    expect(traces[2].batch_id).not.toBe(traces[0].batch_id);
    expect(traces[0]).toMatchObject({ replay_of: null, replays: [], principal: LOCAL });
    // A replay made through the executor (no principal in its context) is listed by its original.
    const replay = await ts.executor.execute(
      { name: 'calculator', arguments: { expression: '1+1' } },
      { replayOf: traces[0].id },
    );
    expect(await (await getTrace(traces[0].id)).json()).toMatchObject({ replays: [replay.traceId] });
    expect(await (await getTrace(replay.traceId)).json()).toMatchObject({
      replay_of: traces[0].id,
      flags: { replayed: true },
      principal: null,
    });
  });

  it('runs OpenAI tool calls and returns results and tool messages in input order', async () => {
    const response = await post({
      session_id: 'sess-1',
      tool_calls: [
        call('call_a', 'calculator', { expression: '2 + 3 * 4' }),
        call('call_b', 'calculator', '{"expression": '),
        call('call_c', 'nope', {}),
        call('call_d', 'calculator', { expression: 7 }),
      ],
    });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.results.map((r: { tool_call_id: string }) => r.tool_call_id)).toEqual([
      'call_a',
      'call_b',
      'call_c',
      'call_d',
    ]);
    const [a, b, c, d] = body.results;
    expect(a).toMatchObject({ success: true, status: 'succeeded', error: null, attempts: 1 });
    expect(a.output.result).toBe(14);
    expect(a.latency_ms).toBeGreaterThanOrEqual(0);
    expect(a.metadata).toMatchObject({ trace_id: a.trace_id, truncated: false });
    expect(b.error).toMatchObject({ code: 'INVALID_ARGUMENTS', retryable: false, stage: 'parse' });
    expect(c.error.code).toBe('UNKNOWN_TOOL');
    expect(d.error.code).toBe('INVALID_ARGUMENTS');
    expect(d.error.details.issues[0].path).toBe('expression');
    expect(body.messages).toHaveLength(4);
    expect(body.messages[0]).toEqual({ role: 'tool', tool_call_id: 'call_a', content: expect.stringContaining('14') });
    expect(body.messages[2].content).toContain('UNKNOWN_TOOL');
  });

  it('asks for approval of write and exec tools by default: nothing runs until a person decides', async () => {
    const body = await (
      await post({ wait: false, tool_calls: [call('w', 'write_file', { path: 'a.txt', content: 'x' })] })
    ).json();
    expect(body.results[0]).toMatchObject({ status: 'awaiting_approval', success: false });
    expect(ts.approvals.get(body.results[0].trace_id)).toMatchObject({ tool: 'write_file' });
    expect(fs.existsSync(path.join(ts.config.workspace, 'a.txt'))).toBe(false);
    ts.executor.cancel(body.results[0].trace_id, { by: 'test' });
  });

  it.each([
    ['not JSON', '{nope', 'INVALID_JSON'],
    ['empty', '', 'INVALID_JSON'],
    ['no tool_calls', { session_id: 'x' }, 'INVALID_REQUEST'],
    ['empty tool_calls', { tool_calls: [] }, 'INVALID_REQUEST'],
    ['a call without id', { tool_calls: [{ type: 'function', function: { name: 'calculator' } }] }, 'INVALID_REQUEST'],
    ['a non-string name', { tool_calls: [{ id: 'x', function: { name: 3 } }] }, 'INVALID_REQUEST'],
    ['an array body', [1, 2], 'INVALID_REQUEST'],
    ['a bad max_concurrency', { tool_calls: [call('x', 'calculator', {})], max_concurrency: 0 }, 'INVALID_REQUEST'],
  ])('answers 400 for %s', async (_name, body, code) => {
    const response = await post(body);
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe(code);
  });

  const block = (id: string, name: string, input: unknown) => ({ type: 'tool_use', id, name, input });

  it.each([
    [
      'both tool_calls and tool_use',
      { tool_calls: [call('x', 'calculator', {})], tool_use: [] },
      /^tool_calls, tool_use: /,
    ],
    ['neither tool_calls nor tool_use', { session_id: 'x' }, /^tool_calls: missing; .*tool_use/],
    ['an empty tool_use', { tool_use: [] }, /^tool_use: /],
    ['tool_use not an array', { tool_use: { id: 'x' } }, /^tool_use: /],
    [
      'a block of another type',
      { tool_use: [{ ...block('x', 'calculator', {}), type: 'text' }] },
      /^tool_use\.0\.type: /,
    ],
    ['a block without id', { tool_use: [{ type: 'tool_use', name: 'calculator', input: {} }] }, /^tool_use\.0\.id: /],
    [
      'a block without input',
      { tool_use: [{ type: 'tool_use', id: 'x', name: 'calculator' }] },
      /^tool_use\.0\.input: /,
    ],
    ['an input that is not an object', { tool_use: [block('x', 'calculator', '{"a":1}')] }, /^tool_use\.0\.input: /],
    ['a bad field beside tool_use', { tool_use: [block('x', 'calculator', {})], wait: 'no' }, /^wait: /],
    ['on_miss without replay_from', { tool_use: [block('x', 'calculator', {})], on_miss: 'run' }, /^on_miss: /],
  ])('answers 400 naming the field for %s', async (_name, body, message) => {
    const response = await post(body);
    expect(response.status).toBe(400);
    const { error } = await response.json();
    expect(error.code).toBe('INVALID_REQUEST');
    expect(error.message).toMatch(message);
  });

  it('takes Anthropic tool_use blocks with the same fields: results and tool_result blocks in input order', async () => {
    const response = await post({
      session_id: 'sess-anthropic',
      max_concurrency: 1,
      tool_use: [
        block('toolu_1', 'calculator', { expression: '2 + 3 * 4' }),
        block('toolu_2', 'calculator', { expression: 7 }),
        block('toolu_3', 'nope', {}),
      ],
    });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(Object.keys(body).sort()).toEqual(['results', 'tool_results']);
    expect(body.results.map((r: { tool_call_id: string }) => r.tool_call_id)).toEqual([
      'toolu_1',
      'toolu_2',
      'toolu_3',
    ]);
    expect(body.results[0]).toMatchObject({ status: 'succeeded', output: { result: 14 } });
    expect(body.tool_results).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_1', content: expect.stringContaining('14'), is_error: false },
      {
        type: 'tool_result',
        tool_use_id: 'toolu_2',
        content: expect.stringContaining('INVALID_ARGUMENTS'),
        is_error: true,
      },
      { type: 'tool_result', tool_use_id: 'toolu_3', content: expect.stringContaining('UNKNOWN_TOOL'), is_error: true },
    ]);
    const trace = await (await getTrace(body.results[0].trace_id)).json();
    expect(trace).toMatchObject({
      session_id: 'sess-anthropic',
      tool_call_id: 'toolu_1',
      arguments: { expression: '2 + 3 * 4' },
    });
  });

  it('serves Anthropic blocks from a recorded session (replay_from), the calls matched by their input', async () => {
    await post({ session_id: 'rec-anthropic', tool_calls: [call('r1', 'calculator', { expression: '5 * 5' })] });
    const body = await (
      await post({
        replay_from: 'rec-anthropic',
        tool_use: [
          block('toolu_r1', 'calculator', { expression: '5 * 5' }),
          block('toolu_r2', 'calculator', { expression: '1' }),
        ],
      })
    ).json();
    expect(body.results[0]).toMatchObject({ tool_call_id: 'toolu_r1', status: 'succeeded', output: { result: 25 } });
    expect(body.results[1].error.code).toBe('RECORDING_MISS');
    expect(body.tool_results.map((r: { is_error: boolean }) => r.is_error)).toEqual([false, true]);
    expect(body.tool_results[1].content).toContain('RECORDING_MISS');
  });

  it('answers 415 for a body that is not declared as JSON, before the handler runs', async () => {
    const before = ts.store.list({ limit: 500 }).items.length;
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', '']) {
      const response = await post(
        { tool_calls: [call('x', 'calculator', { expression: '1' })] },
        { 'content-type': type },
      );
      expect(response.status).toBe(415);
      expect((await response.json()).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
    expect(ts.store.list({ limit: 500 }).items).toHaveLength(before);
    const charset = await post(
      { tool_calls: [call('x', 'calculator', { expression: '1' })] },
      { 'content-type': 'application/json; charset=utf-8' },
    );
    expect(charset.status).toBe(200);
  });

  it('answers 413 for a body over the limit, declared or not', async () => {
    const big = JSON.stringify({ tool_calls: [call('x', 'calculator', { expression: '1'.repeat(2 * 1024 * 1024) })] });
    const response = await post(big);
    expect(response.status).toBe(413);
    expect((await response.json()).error.code).toBe('PAYLOAD_TOO_LARGE');
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    // A stream that does not say its length.
    const streamed = await app.request('http://127.0.0.1:3000/api/v1/tool-calls', {
      method: 'POST',
      headers: { host: '127.0.0.1:3000', 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect((await streamed.json()).error.code).toBe('PAYLOAD_TOO_LARGE');
  });
});
