import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../config';
import { InvalidCursorError } from '../db/trace-store';
import { createToolscope, type Toolscope } from '../server/create-toolscope';
import { getTrace, listTools, listTraces, postToolCalls } from './handlers';

let dataDir: string;
let ts: Toolscope;

beforeAll(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-api-'));
  ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: dataDir }, dataDir));
});

afterAll(() => {
  ts.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const base = 'http://127.0.0.1/api/v1';

function post(body: unknown, init: RequestInit = {}) {
  return postToolCalls(
    new Request(`${base}/tool-calls`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      ...init,
    }),
    ts,
  );
}

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
      [...first.results, ...second.results].map(async (r: { trace_id: string }) =>
        (await getTrace(r.trace_id, ts)).json(),
      ),
    );
    expect(traces[0].batch_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(traces[1].batch_id).toBe(traces[0].batch_id);
    expect(traces[2].batch_id).not.toBe(traces[0].batch_id);
    expect(traces[0]).toMatchObject({ replay_of: null, replays: [] });
    // A replay (through the executor until #9's replay endpoint) is listed by its original.
    const replay = await ts.executor.execute(
      { name: 'calculator', arguments: { expression: '1+1' } },
      { replayOf: traces[0].id },
    );
    expect(await (await getTrace(traces[0].id, ts)).json()).toMatchObject({ replays: [replay.traceId] });
    expect(await (await getTrace(replay.traceId, ts)).json()).toMatchObject({
      replay_of: traces[0].id,
      flags: { replayed: true },
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
    const trace = await (await getTrace(body.results[0].trace_id, ts)).json();
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

  it('answers 415 for a body that is not declared as JSON', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', '']) {
      const response = await post(
        { tool_calls: [call('x', 'calculator', { expression: '1' })] },
        {
          headers: type ? { 'content-type': type } : {},
        },
      );
      expect(response.status).toBe(415);
      expect((await response.json()).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    }
    const charset = await post(
      { tool_calls: [call('x', 'calculator', { expression: '1' })] },
      {
        headers: { 'content-type': 'application/json; charset=utf-8' },
      },
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
    const streamed = await postToolCalls(
      new Request(`${base}/tool-calls`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: stream,
        duplex: 'half',
      } as RequestInit),
      ts,
    );
    expect(streamed.status).toBe(413);
  });
});

describe('GET /api/v1/traces', () => {
  it('returns the whole redacted trace, never the raw arguments', async () => {
    const body = await (
      await post({
        tool_calls: [
          call('call_secret', 'calculator', { expression: '1+1', api_key: 'sk-live-abcdefghijklmnopqrstu' }),
        ],
      })
    ).json();
    const id = body.results[0].trace_id;
    const response = await getTrace(id, ts);
    expect(response.status).toBe(200);
    const trace = await response.json();
    expect(trace).toMatchObject({ id, tool_call_id: 'call_secret', tool: 'calculator' });
    expect(trace.stages.map((s: { name: string }) => s.name)).toEqual([
      'parse',
      'validate',
      'permission',
      'execute',
      'normalize',
      'trace',
    ]);
    expect(trace.stages[0]).toEqual(
      expect.objectContaining({ status: 'ok', started_at: expect.any(Number), duration_ms: expect.any(Number) }),
    );
    expect(trace.arguments.api_key).toBe('[REDACTED]');
    expect(JSON.stringify(trace)).not.toContain('abcdefghijklmnopqrstu');
    expect(trace).not.toHaveProperty('raw_arguments');
    expect(typeof trace.model_message).toBe('string');
    expect(trace.created_at).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('answers 404 for an unknown trace', async () => {
    const response = await getTrace('nope', ts);
    expect(response.status).toBe(404);
    expect((await response.json()).error.code).toBe('NOT_FOUND');
  });

  it('lists newest first with filters and keyset pagination', async () => {
    await post({
      session_id: 'paging',
      tool_calls: Array.from({ length: 5 }, (_, i) => call(`p${i}`, 'calculator', { expression: `${i}+1` })),
      max_concurrency: 1,
    });
    const first = await (await listTraces(new Request(`${base}/traces?session=paging&limit=2`), ts)).json();
    expect(first.items.map((t: { tool_call_id: string }) => t.tool_call_id)).toEqual(['p4', 'p3']);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await (
      await listTraces(new Request(`${base}/traces?session=paging&limit=2&cursor=${first.next_cursor}`), ts)
    ).json();
    expect(second.items.map((t: { tool_call_id: string }) => t.tool_call_id)).toEqual(['p2', 'p1']);
    const third = await (
      await listTraces(new Request(`${base}/traces?session=paging&limit=2&cursor=${second.next_cursor}`), ts)
    ).json();
    expect(third.items.map((t: { tool_call_id: string }) => t.tool_call_id)).toEqual(['p0']);
    expect(third.next_cursor).toBeNull();
    expect(first.total).toBeNull();
    expect(first.items[0].arguments_preview).toBe('{"expression":"4+1"}');

    const all = await (await listTraces(new Request(`${base}/traces?limit=1`), ts)).json();
    const calculator = await (await listTraces(new Request(`${base}/traces?tool=calculator&limit=1`), ts)).json();
    const counted = ts.store.toolStats().find((tool) => tool.tool === 'calculator')?.calls;
    expect(calculator.total).toBe(counted);
    expect(all.total).toBeGreaterThanOrEqual(calculator.total);

    const failed = await (await listTraces(new Request(`${base}/traces?status=failed&tool=calculator`), ts)).json();
    expect(failed.items.length).toBeGreaterThan(0);
    expect(failed.items.every((t: { status: string }) => t.status === 'failed')).toBe(true);
  });

  it.each([
    ['status=bogus', 'INVALID_QUERY'],
    ['limit=0', 'INVALID_QUERY'],
    ['limit=abc', 'INVALID_QUERY'],
    ['cursor=garbage!', 'INVALID_CURSOR'],
  ])('answers 400 for %s', async (query, code) => {
    const response = await listTraces(new Request(`${base}/traces?${query}`), ts);
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe(code);
  });
});

describe('GET /api/v1/traces?cursor=garbage', () => {
  it('answers 400 INVALID_CURSOR when the store throws its own copy of the error class', async () => {
    // The production build can bundle the store into another chunk than the handler, each with
    // its own InvalidCursorError class; a fresh module graph reproduces that here.
    vi.resetModules();
    const copy = await import('../db/sqlite-trace-store');
    const { openDatabase } = await import('../db/open-database');
    const { createVault } = await import('../db/vault');
    const store = copy.createSqliteTraceStore({
      db: openDatabase(ts.config.dbPath),
      vault: createVault({ dir: ts.config.dataDir }),
    });
    try {
      let thrown: unknown;
      try {
        store.list({ cursor: 'garbage' });
      } catch (error) {
        thrown = error;
      }
      expect(thrown).not.toBeInstanceOf(InvalidCursorError);
      const response = await listTraces(new Request(`${base}/traces?cursor=garbage`), { ...ts, store });
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        error: { code: 'INVALID_CURSOR', message: expect.stringContaining('cursor') },
      });
    } finally {
      store.close();
    }
  });
});

describe('GET /api/v1/tools', () => {
  it('lists the built-in tools with policy and JSON Schema, in three formats', async () => {
    const own = await (await listTools(new Request(`${base}/tools`), ts)).json();
    const names = own.tools.map((t: { name: string }) => t.name).sort();
    expect(names).toEqual(['calculator', 'http_request', 'read_file', 'run_shell', 'write_file']);
    const calc = own.tools.find((t: { name: string }) => t.name === 'calculator');
    expect(calc).toMatchObject({ side_effect: 'none', policy: 'allow' });
    expect(calc.input_schema.properties.expression.type).toBe('string');
    expect(own.tools.find((t: { name: string }) => t.name === 'run_shell').policy).toBe('ask');

    const openai = await (await listTools(new Request(`${base}/tools?format=openai`), ts)).json();
    expect(openai.tools[0]).toMatchObject({ type: 'function', function: { name: expect.any(String) } });
    const anthropic = await (await listTools(new Request(`${base}/tools?format=anthropic`), ts)).json();
    expect(anthropic.tools[0]).toHaveProperty('input_schema');
    expect((await listTools(new Request(`${base}/tools?format=xml`), ts)).status).toBe(400);
  });
});
