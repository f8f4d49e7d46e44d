import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeTraceId } from '../db/trace-id';
import { MAX_ERROR_DETAILS_CHARS, MAX_ERROR_MESSAGE_CHARS } from '../executor/bound-error';
import { type BuiltServer, hasCurrentBuild, startBuiltServer, waitForMcpServer } from '../server/testing/built-server';
import { crowding } from './testing/machine-pace';

/**
 * Output over the cap marked and bounded, and no tool able to stall the server (issue 12), for
 * errors and for upstream HTTP servers: the built server against an upstream MCP server over
 * Streamable HTTP (`testing/http-mcp-server.mjs`) whose answers are huge or never end.
 * - An error of any size (a validation error on a 1 MiB argument, a 5 MB error result with
 *   thousands of content blocks, a 5 MB JSON-RPC error) is answered, stored and told to the model
 *   within its bounds (`lib/executor/bound-error.ts`), every cut marked.
 * - An upstream answer that never ends fails its call OUTPUT_LIMIT at 10 MiB, as JSON and as an
 *   SSE event, and Toolscope hangs up on it instead of reading on.
 * Meanwhile probes (the traces list, served by Next, and a calculation on the agent path) go on,
 * and the worst probe latency must stay far under what a blocked loop gives.
 * Needs a current build (`node scripts/build.mjs`; `npm test` builds first); skipped without one.
 */
const built = await hasCurrentBuild('error-bounds.test');
const FIXTURE = path.resolve('lib/hardening/testing/http-mcp-server.mjs');

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON answers whose shape they assert on
type Json = any;

/** The worst latency a probe may see (see event-loop-tools.test.ts): stretched by the machine's crowding. */
const PROMPT_MS = 500;
/** Where one call writes about 1 MiB (its arguments) into the store and the search index. */
const HUGE_ROW_MS = 1_000;
/** What an error's JSON may take in all: message, hint and details, each within its bound, and the rest. */
const ERROR_JSON_CHARS = MAX_ERROR_MESSAGE_CHARS * 2 + MAX_ERROR_DETAILS_CHARS + 4_096;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const call = (id: string, name: string, args: unknown) => ({
  id,
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
});

describe.skipIf(!built)('the built server: errors and upstream HTTP answers stay bounded', () => {
  let server: BuiltServer;
  let fixture: ChildProcess;
  let db: Database.Database;

  async function post(body: unknown): Promise<Json> {
    const { status, json } = await server.send('POST', '/api/v1/tool-calls', body);
    expect(status, JSON.stringify(json).slice(0, 500)).toBe(200);
    return json;
  }

  let probesSent = 0;
  async function probe(n: number): Promise<void> {
    if (n % 2 === 0) {
      const { status, json } = await server.send('GET', '/api/v1/traces?limit=1');
      expect(status).toBe(200);
      expect(Array.isArray(json.items)).toBe(true);
    } else {
      const { json } = await server.send('POST', '/api/v1/tool-calls', {
        session_id: 'probes',
        // A fresh id each time: a repeated one would be answered from the store, not run.
        tool_calls: [call(`probe_${n}_${++probesSent}`, 'calculator', { expression: `${n} * 3` })],
      });
      expect(json.results[0].output.result).toBe(n * 3);
    }
  }

  /** Runs `work` with a probe every 20 ms (the first as it starts), and on for half a second after; the worst probe latency. */
  async function probeWhile<T>(work: () => Promise<T>): Promise<{ value: T; ms: number; worstMs: number }> {
    const started = performance.now();
    let settledAt: number | null = null;
    const running = work().finally(() => {
      settledAt = performance.now();
    });
    running.catch(() => {});
    const latencies: number[] = [];
    let during = 0;
    for (let n = 0; settledAt === null || performance.now() - settledAt < 500; n++) {
      if (settledAt === null) during++;
      const sent = performance.now();
      await probe(n);
      latencies.push(performance.now() - sent);
      await sleep(20);
    }
    const value = await running;
    expect(during, 'probes sent while the work ran').toBeGreaterThanOrEqual(1);
    return { value, ms: (settledAt ?? performance.now()) - started, worstMs: Math.max(...latencies) };
  }

  /** The stored columns of a call that carry its error, as SQLite holds them: their lengths. */
  function storedErrorLengths(traceId: string): Record<string, number> {
    return db
      .prepare(
        'SELECT length(error) AS error, length(model_message) AS model_message, length(stages) AS stages, length(attempts) AS attempts FROM tool_calls WHERE id = ?',
      )
      .get(encodeTraceId(traceId)) as Record<string, number>;
  }

  /** The call's answer, its trace's error and stages, and its stored columns, each within the bounds. */
  async function expectBounded(answer: Json): Promise<Json> {
    const [result] = answer.results;
    expect(JSON.stringify(result.error).length).toBeLessThan(ERROR_JSON_CHARS);
    expect(answer.messages[0].content.length).toBeLessThan(MAX_ERROR_MESSAGE_CHARS + 1_000);
    const trace = await server.send('GET', `/api/v1/traces/${result.trace_id}`);
    expect(trace.status).toBe(200);
    expect(JSON.stringify(trace.json.result.error).length).toBeLessThan(ERROR_JSON_CHARS);
    for (const stage of trace.json.stages)
      expect(stage.detail?.length ?? 0).toBeLessThan(MAX_ERROR_MESSAGE_CHARS + 1_000);
    const stored = storedErrorLengths(result.trace_id);
    expect(stored.error).toBeLessThan(ERROR_JSON_CHARS);
    expect(stored.model_message).toBeLessThan(MAX_ERROR_MESSAGE_CHARS + 1_000);
    expect(stored.stages).toBeLessThan(2 * ERROR_JSON_CHARS);
    expect(stored.attempts).toBeLessThan(2 * ERROR_JSON_CHARS);
    return trace.json;
  }

  /** How many bytes the fixture's last endless answer wrote, and whether Toolscope hung up on it. */
  async function lastEndless(): Promise<{ bytes: number; closed: boolean }> {
    const answer = await post({ tool_calls: [call('written', 'web__written', {})] });
    return JSON.parse(answer.results[0].output);
  }

  beforeAll(async () => {
    fixture = spawn(process.execPath, [FIXTURE], { stdio: ['ignore', 'pipe', 'inherit'] });
    const port = await new Promise<number>((resolve, reject) => {
      fixture.stdout?.on('data', (chunk: Buffer) => {
        const match = /listening (\d+)/.exec(chunk.toString());
        if (match) resolve(Number(match[1]));
      });
      fixture.once('exit', (code) => reject(new Error(`the fixture exited with ${code}`)));
    });
    server = await startBuiltServer('toolscope-error-bounds-', {
      policies: { calculator: 'allow' },
      mcp: { servers: { web: { url: `http://127.0.0.1:${port}/mcp`, timeout_ms: 30_000, trustAnnotations: true } } },
    });
    await waitForMcpServer(server, 'web');
    db = new Database(path.join(server.dir, 'toolscope.db'), { readonly: true, fileMustExist: true });
    await post({ tool_calls: [call('warm', 'calculator', { expression: 'sqrt(16)' })] });
  }, 90_000);

  afterAll(() => {
    db?.close();
    server?.stop();
    fixture?.kill();
  });

  it('answers validation errors on 1 MiB arguments (a megabyte key; 150,000 and 400,000 wrong items) within bounds, and serves others meanwhile', async () => {
    // Near the body limit each: a key the schema does not take; an array whose every item is of
    // the wrong type (JSON Schema through Ajv, and zod: run_shell's argv), which made an issue per
    // item — 0.5–2 s of the event loop — before large arguments were checked up to their first issue.
    const bigKey = { text: 'x', [`k${'e'.repeat(900_000)}`]: 1 };
    const wrongTags = { text: 'x', tags: Array.from({ length: 150_000 }, () => 's') };
    const wrongArgv = { command: Array.from({ length: 400_000 }, () => 1) };
    const run = await probeWhile(async () => [
      await post({ session_id: 'invalid-huge', tool_calls: [call('key', 'web__echo', bigKey)] }),
      await post({ session_id: 'invalid-huge', tool_calls: [call('tags', 'web__echo', wrongTags)] }),
      await post({ session_id: 'invalid-huge', tool_calls: [call('argv', 'run_shell', wrongArgv)] }),
    ]);
    expect(run.worstMs).toBeLessThan(HUGE_ROW_MS * crowding());
    const [key, tags, argv] = run.value.map((answer: Json) => answer.results[0]);
    for (const result of [key, tags, argv]) {
      expect(result).toMatchObject({ status: 'failed', error: { code: 'INVALID_ARGUMENTS', stage: 'validate' } });
    }
    expect(key.error.message).toContain('[truncated ');
    expect(key.error.details.issues[0].path).toContain('[truncated ');
    for (const result of [tags, argv]) {
      expect(result.error.message).toMatch(/checked up to their first issue\)\.$/);
      expect(result.error.details.checked).toBe('up to the first issue');
    }
    expect(tags.error.details.issues).toEqual([expect.objectContaining({ path: 'tags.0' })]);
    expect(argv.error.details.issues).toEqual([expect.objectContaining({ path: 'command.0' })]);
    for (const answer of run.value) await expectBounded(answer);
  });

  it('answers a 5 MB upstream error result (text and 20,000 blocks, over SSE) within bounds, and serves others meanwhile', async () => {
    const run = await probeWhile(() =>
      post({
        session_id: 'http-huge-error',
        tool_calls: [call('e', 'web__huge_error', { chars: 5_000_000, blocks: 20_000, sse: true })],
      }),
    );
    expect(run.worstMs).toBeLessThan(PROMPT_MS * crowding());
    const [result] = run.value.results;
    expect(result).toMatchObject({ status: 'failed', error: { code: 'UPSTREAM_TOOL_ERROR' } });
    expect(result.error.message).toContain('[truncated ');
    expect(JSON.stringify(result.error.details)).toMatch(/…\[\d+ more items not kept\]/);
    const trace = await expectBounded(run.value);
    expect(JSON.stringify(trace).length).toBeLessThan(4 * ERROR_JSON_CHARS);
  });

  it('answers a 5 MB JSON-RPC error from upstream within bounds, and serves others meanwhile', async () => {
    const run = await probeWhile(() =>
      post({ session_id: 'http-rpc-error', tool_calls: [call('r', 'web__rpc_error', { chars: 5_000_000 })] }),
    );
    expect(run.worstMs).toBeLessThan(PROMPT_MS * crowding());
    const [result] = run.value.results;
    expect(result).toMatchObject({ status: 'failed', error: { code: 'UPSTREAM_ERROR' } });
    expect(result.error.message).toContain('[truncated ');
    await expectBounded(run.value);
  });

  for (const sse of [false, true]) {
    const form = sse ? 'an SSE event' : 'a JSON body';
    it(`fails an endless upstream answer (${form}) OUTPUT_LIMIT at 10 MiB, hangs up on it, and serves others meanwhile`, async () => {
      const run = await probeWhile(() =>
        post({ session_id: 'http-endless', tool_calls: [call('endless', 'web__endless', { sse })] }),
      );
      expect(run.worstMs).toBeLessThan(PROMPT_MS * crowding());
      // Not left to its 30 s timeout: that would fail it TIMEOUT, not OUTPUT_LIMIT.
      const [result] = run.value.results;
      expect(result).toMatchObject({
        status: 'failed',
        error: { code: 'OUTPUT_LIMIT', kind: 'limit', details: { limit_bytes: 10 * 1024 * 1024 } },
      });
      expect(result.error.message).toMatch(
        /^The MCP server "web" answered too much: its answer was over the 10 MiB an MCP message may hold/,
      );
      expect(await lastEndless()).toMatchObject({ closed: true });
      // Still connected: the next call is answered.
      const next = await post({ tool_calls: [call('after', 'web__echo', { text: 'after', sse })] });
      expect(next.results[0]).toMatchObject({ status: 'succeeded', output: 'after' });
    });
  }
});
