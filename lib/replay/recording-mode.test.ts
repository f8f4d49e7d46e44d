import fs from 'node:fs';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadConfig } from '../config';
import { defineTool } from '../executor/define-tool';
import { ToolError } from '../executor/errors';
import { createHttpApp, type HttpApp } from '../http/app';
import { createHttpServer } from '../http/node-server';
import { callApp } from '../http/testing/call-app';
import { closeServer, listenOnLoopback } from '../http/testing/listen';
import { createToolscope, type Toolscope } from '../server/create-toolscope';

/**
 * Recording mode (`replay_from`, `on_miss`) through the HTTP layer both ways it is mounted: in
 * process with a web request (as Next's catch-all route serves it) and on Node's server on a real
 * loopback port, one real SQLite file.
 */
let dir: string;
let ts: Toolscope;
let server: http.Server;
let port: number;
let app: HttpApp;
const runs = { tick: 0, echo: 0, refuse: 0, keyed: 0 };

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-recording-'));
  ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: dir }, dir), {
    tools: [
      defineTool({
        name: 'tick',
        description: 'Counts its calls',
        sideEffect: 'none',
        inputSchema: z.object({}),
        execute: () => ({ tick: ++runs.tick }),
      }),
      defineTool({
        name: 'echo',
        description: 'Answers its arguments',
        sideEffect: 'write',
        inputSchema: z.object({ a: z.number(), b: z.number().optional() }),
        execute: (input) => {
          runs.echo++;
          return input;
        },
      }),
      defineTool({
        name: 'keyed',
        description: 'Takes a key (a secret by its name) and a query',
        sideEffect: 'none',
        inputSchema: z.object({ query: z.string(), api_key: z.string() }),
        execute: ({ query }) => {
          runs.keyed++;
          return { query, rows: runs.keyed };
        },
      }),
      defineTool({
        name: 'refuse',
        description: 'Always fails',
        sideEffect: 'none',
        inputSchema: z.object({}),
        execute: () => {
          runs.refuse++;
          throw ToolError.business('NOPE', 'The refuse tool says no.');
        },
      }),
    ],
    // echo writes: recorded calls are approved here; served ones must never ask.
    approver: { request: async () => ({ approved: true, by: 'test' }) },
  });
  app = createHttpApp(ts);
  server = createHttpServer(app, ts.config.limits);
  port = await listenOnLoopback(server);
});

afterAll(async () => {
  await closeServer(server);
  await ts.stop({ by: 'test' });
  ts.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON answers whose shape they assert on
type Json = any;
type Send = (body: object) => Promise<{ status: number; json: Json }>;

const PATHS: [string, Send][] = [
  [
    'a web request',
    async (body) => {
      const response = await callApp(app, 'POST', '/api/v1/tool-calls', { body });
      return { status: response.status, json: await response.json() };
    },
  ],
  [
    "Node's server",
    async (body) => {
      const response = await fetch(`http://127.0.0.1:${port}/api/v1/tool-calls`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, json: await response.json() };
    },
  ],
];

const call = (id: string, name: string, args: object | string) => ({
  id,
  type: 'function',
  function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
});

async function traceOf(id: string): Promise<Json> {
  return (await callApp(app, 'GET', `/api/v1/traces/${id}`)).json();
}

describe.each(PATHS)('recording mode on %s', (name, send) => {
  const tag = name.replace(/\W+/g, '-');
  const recorded = `rec${tag}`;
  let recordedIds: Record<string, string[]> = {};

  beforeAll(async () => {
    const answer = await send({
      session_id: recorded,
      tool_calls: [call('t1', 'tick', {}), call('r1', 'refuse', {}), call('e1', 'echo', '{"b": 1, "a": 2}')],
    });
    const later = await send({ session_id: recorded, tool_calls: [call('t2', 'tick', {})] });
    const results = [...answer.json.results, ...later.json.results];
    expect(results.map((r: Json) => r.status)).toEqual(['succeeded', 'failed', 'succeeded', 'succeeded']);
    recordedIds = {
      tick: [results[0].trace_id, results[3].trace_id],
      refuse: [results[1].trace_id],
      echo: [results[2].trace_id],
    };
  });

  it('serves matching calls from the recording without running anything: the nth gets the nth, later ones the last', async () => {
    const before = { ...runs };
    const answer = await send({
      session_id: `play${tag}`,
      replay_from: recorded,
      tool_calls: [
        call('p1', 'tick', {}),
        call('p2', 'tick', ''),
        call('p3', 'tick', {}),
        // Key order does not matter; the arguments are compared as data.
        call('p4', 'echo', { a: 2, b: 1 }),
        call('p5', 'refuse', {}),
      ],
      max_concurrency: 1,
    });
    expect(answer.status).toBe(200);
    expect(runs).toEqual(before);
    const [t1, t2, t3, echo, refuse] = answer.json.results;
    const recordedTicks = await Promise.all((recordedIds.tick ?? []).map(traceOf));
    expect([t1.output, t2.output, t3.output]).toEqual([
      recordedTicks[0].result.output,
      recordedTicks[1].result.output,
      recordedTicks[1].result.output,
    ]);
    expect(t1.output).not.toEqual(t2.output);
    expect(echo).toMatchObject({ status: 'succeeded', output: { b: 1, a: 2 } });
    expect(refuse).toMatchObject({ status: 'failed', success: false, error: { code: 'NOPE' } });
    expect(answer.json.messages[4].content).toMatch(/^Error NOPE: The refuse tool says no\./);

    const served = await traceOf(t3.trace_id);
    expect(served).toMatchObject({
      session_id: `play${tag}`,
      served_from: recordedIds.tick?.[1],
      replay_of: null,
      attempts: [],
    });
    const stage = (stageName: string) => served.stages.find((s: Json) => s.name === stageName);
    expect(stage('parse').status).toBe('ok');
    expect(stage('validate').status).toBe('ok');
    for (const skipped of ['permission', 'execute']) {
      expect(stage(skipped)).toMatchObject({
        status: 'skipped',
        detail: `served from the recording ${recordedIds.tick?.[1]}`,
      });
    }
    expect((await traceOf(echo.trace_id)).served_from).toBe(recordedIds.echo?.[0]);
    expect((await traceOf(refuse.trace_id)).served_from).toBe(recordedIds.refuse?.[0]);
    // The list says where each came from.
    const listed: Json = await (await callApp(app, 'GET', `/api/v1/traces?session=play${tag}`)).json();
    expect(new Set(listed.items.map((item: Json) => item.served_from))).toEqual(
      new Set([...(recordedIds.tick ?? []), ...(recordedIds.echo ?? []), ...(recordedIds.refuse ?? [])]),
    );
  });

  it("counts a session's served calls across its requests", async () => {
    const session = `across${tag}`;
    const first = await send({ session_id: session, replay_from: recorded, tool_calls: [call('a', 'tick', {})] });
    const second = await send({ session_id: session, replay_from: recorded, tool_calls: [call('b', 'tick', {})] });
    expect((await traceOf(first.json.results[0].trace_id)).served_from).toBe(recordedIds.tick?.[0]);
    expect((await traceOf(second.json.results[0].trace_id)).served_from).toBe(recordedIds.tick?.[1]);
  });

  it('fails a call with no recording with RECORDING_MISS by default, naming the session and the tool', async () => {
    const before = { ...runs };
    const answer = await send({
      session_id: `miss${tag}`,
      replay_from: recorded,
      tool_calls: [call('m1', 'echo', { a: 3 })],
    });
    expect(runs).toEqual(before);
    const [miss] = answer.json.results;
    expect(miss).toMatchObject({ status: 'failed', error: { code: 'RECORDING_MISS', retryable: false } });
    expect(miss.error.message).toContain(`"${recorded}"`);
    expect(miss.error.message).toContain('echo');
    expect(answer.json.messages[0].content).toContain('RECORDING_MISS');
    const traced = await traceOf(miss.trace_id);
    expect(traced.served_from).toBeNull();
    expect(traced.stages.find((s: Json) => s.name === 'execute')).toMatchObject({ status: 'failed' });
  });

  it('runs a call with no recording for real with on_miss "run"; validation still comes first', async () => {
    const before = runs.echo;
    const answer = await send({
      session_id: `run${tag}`,
      replay_from: recorded,
      on_miss: 'run',
      tool_calls: [call('m1', 'echo', { a: 3 }), call('m2', 'tick', { extra: true })],
    });
    const [ran, invalid] = answer.json.results;
    expect(ran).toMatchObject({ status: 'succeeded', output: { a: 3 } });
    expect(runs.echo).toBe(before + 1);
    expect((await traceOf(ran.trace_id)).served_from).toBeNull();
    expect(invalid).toMatchObject({ status: 'failed', error: { code: 'INVALID_ARGUMENTS' } });
  });

  it('refuses an unknown or empty recording, and on_miss without replay_from (400 naming the field)', async () => {
    const unknown = await send({ replay_from: 'never-recorded', tool_calls: [call('x', 'tick', {})] });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.message).toMatch(/^replay_from: the session "never-recorded" has no recorded calls/);
    const alone = await send({ on_miss: 'run', tool_calls: [call('x', 'tick', {})] });
    expect(alone.status).toBe(400);
    expect(alone.json.error.message).toMatch(/^on_miss: /);
    const wrong = await send({ replay_from: recorded, on_miss: 'maybe', tool_calls: [call('x', 'tick', {})] });
    expect(wrong.status).toBe(400);
    expect(wrong.json.error.message).toMatch(/^on_miss: /);
  });
});

describe('a kept recording', () => {
  it('is read again once the recorded session has a newer call', async () => {
    const send = PATHS[0]?.[1] as Send;
    await send({ session_id: 'grows', tool_calls: [call('a', 'echo', { a: 1 })] });
    const before = await send({
      session_id: 'grows-play',
      replay_from: 'grows',
      tool_calls: [call('x', 'echo', { a: 9 })],
    });
    expect(before.json.results[0].error.code).toBe('RECORDING_MISS');
    await send({ session_id: 'grows', tool_calls: [call('b', 'echo', { a: 9 })] });
    const after = await send({
      session_id: 'grows-play',
      replay_from: 'grows',
      tool_calls: [call('x', 'echo', { a: 9 })],
    });
    expect(after.json.results[0]).toMatchObject({ status: 'succeeded', output: { a: 9 } });
  });
});

describe('recording mode and secrets', () => {
  it('matches on the redacted arguments: a right and a wrong guess of a recorded secret are served alike', async () => {
    const send = PATHS[0]?.[1] as Send;
    const secret = 'sk-live-0123456789abcdefSECRET';
    const recordedCall = await send({
      session_id: 'keyed-rec',
      tool_calls: [call('k1', 'keyed', { query: 'balance', api_key: secret })],
    });
    const recordedId = recordedCall.json.results[0].trace_id;
    const before = { ...runs };
    const guesses: Record<string, Json> = {};
    for (const [name, key] of [
      ['right', secret],
      ['wrong', 'sk-live-not-the-one-at-all-000000'],
      ['short', 'x'],
    ] as const) {
      const answer = await send({
        session_id: `keyed-play-${name}`,
        replay_from: 'keyed-rec',
        tool_calls: [call('g', 'keyed', { query: 'balance', api_key: key })],
      });
      guesses[name] = answer.json.results[0];
    }
    expect(runs).toEqual(before);
    for (const result of Object.values(guesses)) {
      expect(result).toMatchObject({ status: 'succeeded', output: { query: 'balance', rows: 1 } });
      expect((await traceOf(result.trace_id)).served_from).toBe(recordedId);
    }
    // What is not secret still tells calls apart.
    const other = await send({
      session_id: 'keyed-play-other',
      replay_from: 'keyed-rec',
      tool_calls: [call('g', 'keyed', { query: 'history', api_key: secret })],
    });
    expect(other.json.results[0].error.code).toBe('RECORDING_MISS');
  });
});
