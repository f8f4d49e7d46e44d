import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { testPrincipal } from '../../access/testing/principals';
import type { StreamEvent } from '../../events';
import { inputJsonSchema } from '../../executor/json-schema';
import { createHttpApp } from '../../http/app';
import { callApp } from '../../http/testing/call-app';
import type { Toolscope } from '../../server/create-toolscope';
import { testToolscopes } from '../../server/testing/test-toolscopes';
import type { ServerState } from './upstream-server';

/**
 * Upstream MCP servers for real: the official server-everything and server-filesystem, and a
 * small fixture server (`testing/fixture-server.mjs`) that writes to stderr, crashes on demand
 * and waits until cancelled, each a child process spoken to through the SDK's Client.
 */
const toolscopes = testToolscopes('toolscope-upstream-');
const modules = path.resolve('node_modules/@modelcontextprotocol');
const EVERYTHING = path.join(modules, 'server-everything/dist/index.js');
const FILESYSTEM = path.join(modules, 'server-filesystem/dist/index.js');
const FIXTURE = path.resolve('lib/mcp/upstream/testing/fixture-server.mjs');

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON answers whose shape they assert on
type Json = any;

/** The HTTP layer's answer to one request of `ts`, in process. */
const api = (ts: Toolscope, method: string, path: string, body?: object) =>
  callApp(createHttpApp(ts), method, path, { body });

async function until<T>(what: string, read: () => T | null | undefined | false, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const stateOf = (ts: Toolscope, name: string) => ts.upstream.get(name)?.state;
const connected = (ts: Toolscope, name: string, ms?: number) =>
  until(`${name} connected`, () => stateOf(ts, name) === 'connected' && ts.upstream.get(name), ms);
const reached = (ts: Toolscope, name: string, state: ServerState, ms?: number) =>
  until(`${name} ${state}`, () => stateOf(ts, name) === state && ts.upstream.get(name), ms);

const call = (ts: Toolscope, name: string, args: object, sessionId?: string) =>
  ts.executor.execute({ name, arguments: args }, { actor: 'test', sessionId: sessionId ?? null });

/**
 * Makes a call that must wait for a person: resolves with its trace once it waits (the rule that
 * asked is on it), denies it and waits for its end.
 */
async function waitsForApproval(ts: Toolscope, name: string, args: object) {
  let traceId = '';
  const result = ts.executor.execute(
    { name, arguments: args },
    { actor: 'test', onAwaitingApproval: (id) => (traceId = id) },
  );
  await until(`${name} waiting for approval`, () => traceId && ts.approvals.get(traceId));
  const record = ts.store.get(traceId);
  expect(ts.approvals.decide(traceId, { decision: 'deny', reason: 'test' }, testPrincipal('test'))).toMatchObject({
    ok: true,
  });
  expect(await result).toMatchObject({ status: 'denied' });
  return record;
}

describe('a stdio server (server-everything)', () => {
  it('lists its tools as everything__<tool> with their JSON Schema and side effects, and says so on the API', async () => {
    const ts = toolscopes.start(
      toolscopes.dataDir({
        mcp: { servers: { everything: { command: 'node', args: [EVERYTHING], trustAnnotations: true } } },
      }),
    );
    const status = await connected(ts, 'everything');
    expect(status).toMatchObject({
      transport: 'stdio',
      protocolVersion: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      serverInfo: { name: expect.any(String), version: expect.any(String) },
      nextRetryAt: null,
    });
    expect(status.tools).toEqual(expect.arrayContaining(['everything__echo', 'everything__get-sum']));
    const echo = ts.executor.registry.get('everything__echo');
    expect(echo).toMatchObject({ sideEffect: 'read', description: 'Echoes back the input string' });
    expect(inputJsonSchema(echo!)).toMatchObject({ type: 'object', properties: { message: { type: 'string' } } });
    expect(ts.executor.registry.get('everything__toggle-simulated-logging')?.sideEffect).toBe('write');
    // The startup line it writes to stderr is kept.
    expect(status.stderrTail.join('\n')).toMatch(/Starting default \(STDIO\) server/);

    const listed: Json = await (await api(ts, 'GET', '/api/v1/mcp/servers')).json();
    expect(listed.servers).toEqual([
      {
        name: 'everything',
        transport: 'stdio',
        state: 'connected',
        protocol_version: status.protocolVersion,
        server_info: status.serverInfo,
        tools: status.tools,
        // Connected, but one tool could not be registered: the entry says which and why.
        error:
          'tools not registered: simulate-research-query (it runs only as an MCP task, which Toolscope does not call)',
        stderr_tail: status.stderrTail,
        connected_at: expect.stringMatching(/Z$/),
        next_retry_at: null,
        relabels: [],
      },
    ]);
    expect(JSON.stringify(listed)).not.toContain(EVERYTHING);
    const missing = await api(ts, 'POST', '/api/v1/mcp/servers/nope/reconnect');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 'NOT_FOUND' } });
  });

  it('runs a plain call, a failing one, one refused by its schema, and a long one whose progress shows live', async () => {
    const ts = toolscopes.start(
      toolscopes.dataDir({
        mcp: { servers: { everything: { command: 'node', args: [EVERYTHING], trustAnnotations: true } } },
        // A rule naming a tool of a server not yet connected compiles.
        permissions: { allow: ['everything__gzip-file-as-resource'] },
      }),
    );
    await connected(ts, 'everything');
    const echo = await call(ts, 'everything__echo', { message: 'hello' });
    expect(echo).toMatchObject({ status: 'succeeded', output: 'Echo: hello' });

    const sum = await call(ts, 'everything__get-sum', { a: 2, b: '3' });
    expect(sum).toMatchObject({ status: 'failed', error: { code: 'INVALID_ARGUMENTS', stage: 'validate' } });

    const failing = await call(ts, 'everything__gzip-file-as-resource', { data: 'ftp://example.com/x' });
    expect(failing).toMatchObject({
      status: 'failed',
      error: { code: 'UPSTREAM_TOOL_ERROR', kind: 'business', retryable: false },
    });
    expect(failing.error?.message).toMatch(/Unsupported URL protocol/);

    const running = call(ts, 'everything__trigger-long-running-operation', { duration: 1.2, steps: 4 });
    const traceId = await until('the long call in flight', () => ts.executor.inFlightIds()[0]);
    const live = await until('progress on the running trace', () => {
      const record = ts.executor.inFlight(traceId);
      return record?.stdout?.includes('progress 2/4') ? record : null;
    });
    expect(live.status).toBe('running');
    const done = await running;
    expect(done).toMatchObject({ status: 'succeeded' });
    expect(String(done.output)).toMatch(/Long running operation completed/);
    const stored = ts.store.get(done.traceId);
    expect(stored?.stdout).toBe('progress 1/4\nprogress 2/4\nprogress 3/4\nprogress 4/4\n');
  });
});

describe('faults, replay and recording mode on an upstream tool', () => {
  it('work on everything__echo as on a built-in tool', async () => {
    const ts = toolscopes.start(
      toolscopes.dataDir({
        mcp: { servers: { everything: { command: 'node', args: [EVERYTHING], trustAnnotations: true } } },
      }),
    );
    await connected(ts, 'everything');
    // Faults act per attempt: the first fails, the retry (echo is idempotent) reaches the server.
    ts.faults.create({ name: 'first fails', tool: 'everything__*', kind: 'fail_first', params: { n: 1 } });
    const faulted = await call(ts, 'everything__echo', { message: 'through a fault' });
    expect(faulted).toMatchObject({
      status: 'succeeded',
      output: 'Echo: through a fault',
      metadata: { faulted: true },
    });
    expect(ts.store.get(faulted.traceId)?.attempts.map((a) => a.outcome)).toEqual(['error', 'ok']);
    ts.faults.reset();

    const post = (body: object) =>
      api(ts, 'POST', '/api/v1/tool-calls', body).then((response) => response.json() as Promise<Json>);
    const tool = (id: string, message: string) => ({
      id,
      type: 'function',
      function: { name: 'everything__echo', arguments: JSON.stringify({ message }) },
    });
    const recorded = await post({ session_id: 'recorded', tool_calls: [tool('c1', 'one')] });
    const original = recorded.results[0];
    expect(original).toMatchObject({ status: 'succeeded', output: 'Echo: one' });

    const replay = (body: object) =>
      api(ts, 'POST', `/api/v1/traces/${original.trace_id}/replay`, body).then(
        (response) => response.json() as Promise<Json>,
      );
    const again = await replay({});
    expect(again).toMatchObject({ status: 'succeeded', output: 'Echo: one' });
    const edited = await replay({ arguments: { message: 'two' } });
    expect(edited).toMatchObject({ status: 'succeeded', output: 'Echo: two' });
    expect(await (await api(ts, 'GET', `/api/v1/traces/${edited.trace_id}`)).json()).toMatchObject({
      replay_of: original.trace_id,
    });

    // Recording mode: served from the recording, nothing reaches the server.
    const served = await post({ session_id: 'played', replay_from: 'recorded', tool_calls: [tool('p1', 'one')] });
    expect(served.results[0]).toMatchObject({ status: 'succeeded', output: 'Echo: one' });
    const trace: Json = await (await api(ts, 'GET', `/api/v1/traces/${served.results[0].trace_id}`)).json();
    expect(trace).toMatchObject({ served_from: original.trace_id, attempts: [] });

    // With the server gone, a recorded call is still served; one that is not recorded fails.
    await ts.upstream.close();
    expect(ts.upstream.get('everything')?.state).toBe('closed');
    const offline = await post({
      session_id: 'offline',
      replay_from: 'recorded',
      on_miss: 'run',
      tool_calls: [tool('o1', 'one'), tool('o2', 'not recorded')],
    });
    expect(offline.results[0]).toMatchObject({ status: 'succeeded', output: 'Echo: one' });
    expect(offline.results[1]).toMatchObject({ status: 'failed', error: { code: 'UPSTREAM_UNAVAILABLE' } });
  });
});

describe('a Streamable HTTP server (server-everything)', () => {
  it('connects with headers from the environment, which no answer shows; goes down with its endpoint and comes back', async () => {
    const net = await import('node:net');
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as { port: number };
        probe.close(() => resolve(free));
      });
    });
    const { spawn } = await import('node:child_process');
    const startServer = async () => {
      const child = spawn('node', [EVERYTHING, 'streamableHttp'], {
        env: { ...process.env, PORT: String(port) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      await new Promise<void>((resolve, reject) => {
        child.stderr.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('listening')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`server-everything exited with ${code}`)));
      });
      return child;
    };
    let child = await startServer();
    const { loadConfig } = await import('../../config');
    const { createToolscope } = await import('../../server/create-toolscope');
    const dir = toolscopes.dataDir({
      mcp: {
        servers: {
          web: {
            url: `http://127.0.0.1:${port}/mcp`,
            trustAnnotations: true,
            // biome-ignore lint/suspicious/noTemplateCurlyInString: the config's own ${NAME} syntax
            headers: { authorization: 'Bearer ${UPSTREAM_TEST_TOKEN}' },
          },
        },
      },
    });
    const ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: dir, UPSTREAM_TEST_TOKEN: 'sekrit-token-value' }, dir));
    try {
      const status = await connected(ts, 'web');
      expect(status).toMatchObject({ transport: 'http', protocolVersion: expect.any(String) });
      const echo = await call(ts, 'web__echo', { message: 'over http' });
      expect(echo).toMatchObject({ status: 'succeeded', output: 'Echo: over http' });
      const listed = JSON.stringify(await (await api(ts, 'GET', '/api/v1/mcp/servers')).json());
      expect(listed).not.toContain('sekrit');
      expect(JSON.stringify(ts.store.get(echo.traceId))).not.toContain('sekrit');

      // The endpoint goes away: the call fails retryably, the server is marked down, then comes back.
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
      const lost = await call(ts, 'web__echo', { message: 'anyone?' });
      expect(lost).toMatchObject({ status: 'failed', error: { code: 'UPSTREAM_UNAVAILABLE', retryable: true } });
      const down = ts.upstream.get('web');
      expect(down?.state).not.toBe('connected');
      expect(down?.error).toMatch(/^the connection failed: .*ECONNREFUSED|^the connection failed/);
      child = await startServer();
      await connected(ts, 'web', 20_000);
      expect(await call(ts, 'web__echo', { message: 'back' })).toMatchObject({ status: 'succeeded' });
    } finally {
      await ts.stop({ by: 'test' });
      ts.close();
      child.kill();
    }
  }, 40_000);
});

describe('a filesystem server (server-filesystem)', () => {
  it('reads inside its folder, refuses outside it, and the permission rules apply to its tools', async () => {
    const dir = toolscopes.dataDir();
    const allowed = path.join(dir, 'allowed');
    fs.mkdirSync(path.join(allowed, 'notes'), { recursive: true });
    fs.writeFileSync(path.join(allowed, 'hello.txt'), 'hello from the allowed folder\n');
    fs.writeFileSync(path.join(dir, 'outside.txt'), 'not for you\n');
    fs.writeFileSync(
      path.join(dir, 'toolscope.config.json'),
      JSON.stringify({
        mcp: { servers: { fs: { command: 'node', args: [FILESYSTEM, allowed], trustAnnotations: true } } },
        permissions: {
          allow: [`fs__write_file(${allowed}/notes/**)`],
          deny: ['fs__write_file(**/*.secret)'],
        },
      }),
    );
    const ts = toolscopes.start(dir);
    await connected(ts, 'fs');
    const fsWrite = ts.executor.registry.get('fs__write_file');
    expect(fsWrite?.sideEffect).toBe('write');
    expect(fsWrite?.retry.maxAttempts).toBe(3); // idempotentHint
    expect(ts.executor.registry.get('fs__edit_file')?.retry.maxAttempts).toBe(1);

    const inside = await call(ts, 'fs__read_text_file', { path: path.join(allowed, 'hello.txt') });
    expect(inside).toMatchObject({ status: 'succeeded', output: { content: 'hello from the allowed folder\n' } });

    const outside = await call(ts, 'fs__read_text_file', { path: path.join(dir, 'outside.txt') });
    expect(outside).toMatchObject({ status: 'failed', error: { code: 'UPSTREAM_TOOL_ERROR', kind: 'business' } });
    expect(outside.error?.message).toMatch(/Access denied - path outside allowed directories/);

    const note = path.join(allowed, 'notes', 'todo.md');
    const written = await call(ts, 'fs__write_file', { path: note, content: 'buy milk' });
    expect(written).toMatchObject({ status: 'succeeded' });
    expect(fs.readFileSync(note, 'utf8')).toBe('buy milk');
    expect(ts.store.get(written.traceId)?.stages.find((s) => s.name === 'permission')?.detail).toMatch(
      /allow fs__write_file\(/,
    );

    const denied = await call(ts, 'fs__write_file', { path: path.join(allowed, 'notes', 'key.secret'), content: 'x' });
    expect(denied).toMatchObject({ status: 'denied', error: { code: 'PERMISSION_DENIED' } });
    expect(fs.existsSync(path.join(allowed, 'notes', 'key.secret'))).toBe(false);
  });
});

describe('a server that fails, crashes and comes back (fixture)', () => {
  it('keeps a failed start’s stderr, marks its tools unavailable, and reconnects on request', async () => {
    const dir = toolscopes.dataDir();
    const failFile = path.join(dir, 'fail');
    fs.writeFileSync(failFile, '');
    fs.writeFileSync(
      path.join(dir, 'toolscope.config.json'),
      JSON.stringify({
        mcp: { servers: { flaky: { command: 'node', args: [FIXTURE], env: { FIXTURE_FAIL_FILE: failFile } } } },
      }),
    );
    const startedAt = Date.now();
    const ts = toolscopes.start(dir);
    const failed = await reached(ts, 'flaky', 'failed');
    expect(failed.error).toBe('it exited with code 1');
    expect(failed.stderrTail).toEqual([`fixture: refusing to start, ${failFile} exists`]);
    // A retry is planned, for after the failure.
    expect(failed.nextRetryAt).toBeGreaterThan(startedAt);
    // Never connected: no tools yet, and none can be called.
    expect(await call(ts, 'flaky__whisper', { text: 'x' })).toMatchObject({ error: { code: 'UNKNOWN_TOOL' } });

    fs.rmSync(failFile);
    const response = await api(ts, 'POST', '/api/v1/mcp/servers/flaky/reconnect');
    expect(response.status).toBe(200);
    const body: Json = await response.json();
    expect(body).toMatchObject({
      name: 'flaky',
      state: 'connected',
      server_info: { name: 'fixture', version: '1.2.3' },
    });
    expect(body.tools).toEqual(['flaky__whisper', 'flaky__crash', 'flaky__wait', 'flaky__add_tool']);
  });

  it('after a crash: unavailable with the reason, stderr kept, back on its own with its tools; the call’s stderr is the server’s', async () => {
    const ts = toolscopes.start(
      toolscopes.dataDir({
        mcp: { servers: { flaky: { command: 'node', args: [FIXTURE], trustAnnotations: true } } },
        permissions: { allow: ['flaky__crash'] },
      }),
    );
    const heard: StreamEvent[] = [];
    ts.events.subscribe((event) => heard.push(event));
    await connected(ts, 'flaky');
    const whisper = await call(ts, 'flaky__whisper', { text: 'psst' });
    expect(whisper).toMatchObject({ status: 'succeeded', output: 'heard psst' });
    expect(ts.store.get(whisper.traceId)?.stderr).toBe('whisper: psst\nwhisper again: psst\n');
    // A secret the server prints is scrubbed from the call's stderr and from the kept tail.
    const leaky = await call(ts, 'flaky__whisper', { text: 'sk-live-abcdefghijklmnop1234' });
    expect(ts.store.get(leaky.traceId)?.stderr).not.toContain('sk-live-abcdefghijklmnop1234');
    expect(ts.upstream.get('flaky')?.stderrTail.join('\n')).not.toContain('sk-live-abcdefghijklmnop1234');
    expect(ts.upstream.get('flaky')?.stderrTail.at(-1)).toMatch(/^whisper again: /);

    const crash = await call(ts, 'flaky__crash', {});
    expect(crash).toMatchObject({ status: 'failed', error: { code: 'UPSTREAM_UNAVAILABLE', retryable: true } });
    expect(ts.store.get(crash.traceId)?.stderr).toBe('fixture: crashing now\n');
    const down = await until('flaky down', () => {
      const status = ts.upstream.get('flaky');
      return status && status.state !== 'connected' && status.error ? status : null;
    });
    expect(down.error).toBe('it exited with code 3');
    expect(down.stderrTail.at(-1)).toBe('fixture: crashing now');
    // Its tools stay, unavailable: a call says why and that it may work later.
    expect(ts.executor.registry.get('flaky__whisper')?.availability?.()).toEqual({
      available: false,
      reason: 'The MCP server "flaky" is not connected: it exited with code 3. Try again once it is back.',
    });
    // (The first reconnect comes 0.8-1 s after the crash.)
    const meanwhile = await call(ts, 'flaky__whisper', { text: 'anyone?' });
    expect(meanwhile).toMatchObject({
      status: 'failed',
      error: { code: 'UPSTREAM_UNAVAILABLE', kind: 'temporary', retryable: true, stage: 'validate' },
    });
    expect(meanwhile.error?.message).toMatch(/^The MCP server "flaky" is not connected: it exited with code 3\./);

    const back = await connected(ts, 'flaky', 15_000);
    expect(back.error).toBeNull();
    expect(await call(ts, 'flaky__whisper', { text: 'again' })).toMatchObject({
      status: 'succeeded',
      output: 'heard again',
    });
    const toolEvents = heard.filter((event) => event.kind === 'tools').map((event) => event.data);
    expect(toolEvents).toContainEqual(expect.objectContaining({ type: 'changed', server: 'flaky' }));
  });

  it('a call waiting for approval is taken up after a restart once its server is back, and runs when approved', async () => {
    const dir = toolscopes.dataDir({ mcp: { servers: { flaky: { command: 'node', args: [FIXTURE] } } } });
    const first = toolscopes.start(dir);
    await connected(first, 'flaky');
    // No annotations: a write, which waits for a person.
    let traceId = '';
    void first.executor.execute(
      { name: 'flaky__add_tool', arguments: {} },
      { actor: 'test', onAwaitingApproval: (id) => (traceId = id) },
    );
    await until('the call waiting', () => traceId && first.approvals.size === 1);
    const second = await toolscopes.restart(first, dir);
    expect(second.resumedAtStart).toBe(1);
    await until('the call taken up again', () => second.approvals.get(traceId));
    expect(second.upstream.get('flaky')?.state).toBe('connected');
    expect(second.approvals.decide(traceId, { decision: 'approve' }, testPrincipal('test'))).toMatchObject({
      ok: true,
    });
    await until('the approved call', () => second.store.get(traceId)?.status === 'succeeded');
    expect(second.store.get(traceId)?.output).toBe('added');
  });

  it('lists its tools again when it says they changed', async () => {
    const ts = toolscopes.start(
      toolscopes.dataDir({
        mcp: { servers: { flaky: { command: 'node', args: [FIXTURE] } } },
        permissions: { allow: ['flaky__add_tool'] },
      }),
    );
    await connected(ts, 'flaky');
    const changes: unknown[] = [];
    ts.executor.registry.onChange((change) => changes.push(change));
    expect(await call(ts, 'flaky__add_tool', {})).toMatchObject({ status: 'succeeded' });
    await until('flaky__extra registered', () => ts.executor.registry.get('flaky__extra'));
    expect(changes).toContainEqual({ type: 'registered', names: ['flaky__extra'] });
    expect(ts.upstream.get('flaky')?.tools).toContain('flaky__extra');
  });

  it('a cancelled call and a timed-out attempt are cancelled upstream too', async () => {
    const ts = toolscopes.start(
      toolscopes.dataDir({
        mcp: {
          servers: {
            flaky: { command: 'node', args: [FIXTURE], trustAnnotations: true },
            hasty: { command: 'node', args: [FIXTURE], timeout_ms: 400, trustAnnotations: true },
          },
        },
      }),
    );
    await connected(ts, 'flaky');
    await connected(ts, 'hasty');
    const running = call(ts, 'flaky__wait', { ms: 20_000 });
    const traceId = await until('the wait in flight', () => ts.executor.inFlightIds()[0]);
    await until('its progress', () => ts.executor.inFlight(traceId)?.stdout?.includes('progress'));
    ts.executor.cancel(traceId, { by: 'test', reason: 'enough' });
    expect(await running).toMatchObject({ status: 'cancelled', error: { code: 'CANCELLED' } });
    await until('the server heard the cancellation', () =>
      ts.upstream.get('flaky')?.stderrTail.some((line) => /fixture: request \d+ cancelled/.test(line)),
    );

    // Not idempotent: one attempt, which times out and is cancelled upstream.
    const timedOut = await call(ts, 'hasty__wait', { ms: 20_000 });
    expect(timedOut).toMatchObject({ status: 'failed', error: { code: 'TIMEOUT' }, metadata: { attempts: 1 } });
    await until('hasty heard the cancellation', () =>
      ts.upstream.get('hasty')?.stderrTail.some((line) => /fixture: request \d+ cancelled/.test(line)),
    );
    expect(ts.upstream.get('hasty')?.state).toBe('connected');
  });
});

describe('the annotations of an upstream server', () => {
  it('are not trusted by default: a readOnlyHint tool is a write and asks; with trustAnnotations it is a read and runs', async () => {
    const ts = toolscopes.start(
      toolscopes.dataDir({
        mcp: {
          servers: {
            plain: { command: 'node', args: [FIXTURE] },
            trusted: { command: 'node', args: [FIXTURE], trustAnnotations: true },
          },
        },
      }),
    );
    await connected(ts, 'plain');
    await connected(ts, 'trusted');
    expect(ts.executor.registry.get('plain__whisper')?.sideEffect).toBe('write');
    expect(ts.executor.registry.get('trusted__whisper')?.sideEffect).toBe('read');
    const tools: Json = await (await api(ts, 'GET', '/api/v1/tools')).json();
    const listed = (name: string) => tools.tools.find((tool: Json) => tool.name === name);
    expect(listed('plain__whisper')).toMatchObject({ side_effect: 'write', policy: 'ask' });
    expect(listed('trusted__whisper')).toMatchObject({ side_effect: 'read', policy: 'allow' });

    const asked = await waitsForApproval(ts, 'plain__whisper', { text: 'psst' });
    expect(asked?.approval?.rule).toBe('default for write: ask');
    expect(await call(ts, 'trusted__whisper', { text: 'psst' })).toMatchObject({
      status: 'succeeded',
      output: 'heard psst',
    });
  });

  it('a relabel after start: a tighter label applies at once, is shown with the server and audited; with trustAnnotations a looser one applies too', async () => {
    const ts = toolscopes.start(
      toolscopes.dataDir({
        mcp: {
          servers: {
            flaky: { command: 'node', args: [FIXTURE], env: { FIXTURE_RELABEL: '1' }, trustAnnotations: true },
          },
        },
        permissions: { allow: ['flaky__relabel'] },
      }),
    );
    await connected(ts, 'flaky');
    expect(ts.executor.registry.get('flaky__whisper')?.sideEffect).toBe('read');
    expect(ts.upstream.get('flaky')?.relabels).toEqual([]);

    const tighter = await call(ts, 'flaky__relabel', { annotations: { readOnlyHint: false, destructiveHint: true } });
    expect(tighter).toMatchObject({ status: 'succeeded' });
    const relabel = await until('the relabel', () => ts.upstream.get('flaky')?.relabels[0]);
    expect(relabel).toMatchObject({
      tool: 'flaky__whisper',
      before: { readOnlyHint: true, idempotentHint: true },
      after: { readOnlyHint: false, destructiveHint: true },
      changes: ['readOnlyHint true → false', 'destructiveHint unset → true', 'idempotentHint true → unset'],
      sideEffectBefore: 'read',
      sideEffectAfter: 'write',
    });
    expect(ts.executor.registry.get('flaky__whisper')?.sideEffect).toBe('write');
    expect(ts.toolPolicy('flaky__whisper', 'write')).toBe('ask');
    const asked = await waitsForApproval(ts, 'flaky__whisper', { text: 'now?' });
    expect(asked?.approval?.rule).toBe('default for write: ask');

    // The servers API (what the tools page shows) and the audit trail say so.
    const servers: Json = await (await api(ts, 'GET', '/api/v1/mcp/servers')).json();
    expect(servers.servers[0].relabels).toEqual([
      {
        tool: 'flaky__whisper',
        at: expect.stringMatching(/Z$/),
        changes: relabel.changes,
        annotations_before: { readOnlyHint: true, idempotentHint: true },
        annotations_after: { readOnlyHint: false, destructiveHint: true },
        side_effect_before: 'read',
        side_effect_after: 'write',
      },
    ]);
    const audited = ts.access.audit.list({ kind: 'mcp_tool.relabelled' }).entries;
    expect(audited).toHaveLength(1);
    expect(audited[0]).toMatchObject({
      principal: { id: 'mcp_server:flaky', name: 'MCP server flaky', role: 'none' },
      target: 'flaky__whisper',
      detail: {
        server: 'flaky',
        tool: 'flaky__whisper',
        changes: relabel.changes,
        side_effect_before: 'read',
        side_effect_after: 'write',
        annotations_before: { readOnlyHint: true, idempotentHint: true },
        annotations_after: { readOnlyHint: false, destructiveHint: true },
        trust_annotations: true,
      },
    });
    expect(ts.access.audit.verify()).toMatchObject({ ok: true });

    // Trusted, the server may make it a read again: applied, and audited like the other.
    await call(ts, 'flaky__relabel', { annotations: { readOnlyHint: true } });
    await until('the second relabel', () => ts.upstream.get('flaky')?.relabels[0]?.sideEffectAfter === 'read');
    expect(ts.executor.registry.get('flaky__whisper')?.sideEffect).toBe('read');
    expect(ts.access.audit.list({ kind: 'mcp_tool.relabelled' }).entries[0]).toMatchObject({
      detail: { side_effect_before: 'write', side_effect_after: 'read', changes: expect.any(Array) },
    });
  });

  it('without trustAnnotations a relabel loosens nothing: the tool stays a write, the relabel is still shown and audited', async () => {
    const ts = toolscopes.start(
      toolscopes.dataDir({
        mcp: { servers: { flaky: { command: 'node', args: [FIXTURE], env: { FIXTURE_RELABEL: '1' } } } },
        permissions: { allow: ['flaky__relabel'] },
      }),
    );
    await connected(ts, 'flaky');
    await call(ts, 'flaky__relabel', { annotations: { readOnlyHint: false, destructiveHint: true } });
    await until('the relabel', () => ts.upstream.get('flaky')?.relabels[0]);
    await call(ts, 'flaky__relabel', { annotations: { readOnlyHint: true, destructiveHint: false } });
    const second = await until('the second relabel', () =>
      ts.upstream.get('flaky')?.relabels[0]?.changes.includes('readOnlyHint false → true')
        ? ts.upstream.get('flaky')?.relabels[0]
        : null,
    );
    expect(second).toMatchObject({ sideEffectBefore: 'write', sideEffectAfter: 'write' });
    expect(ts.executor.registry.get('flaky__whisper')?.sideEffect).toBe('write');
    const audited = ts.access.audit.list({ kind: 'mcp_tool.relabelled' }).entries;
    expect(audited.map((entry) => entry.detail.changes)).toEqual([
      ['readOnlyHint false → true', 'destructiveHint true → false'],
      ['readOnlyHint true → false', 'destructiveHint unset → true', 'idempotentHint true → unset'],
    ]);
    expect(audited[0]?.detail).toMatchObject({ side_effect_after: 'write', trust_annotations: false });
  });
});

describe('path rules on every path an upstream tool takes (server-filesystem)', () => {
  it('a relative path, a path through "..", and read_multiple_files with the secret among its paths are denied; the secret never comes back', async () => {
    const dir = toolscopes.dataDir();
    const root = path.join(dir, 'root');
    const SECRET = 'the-secret-content-7f3a9c';
    for (const folder of ['secret', 'notes', 'private']) fs.mkdirSync(path.join(root, folder), { recursive: true });
    fs.writeFileSync(path.join(root, 'secret', 'key.txt'), SECRET);
    fs.writeFileSync(path.join(root, 'notes', 'a.txt'), 'note a');
    fs.writeFileSync(path.join(root, 'private', 'p.txt'), 'private p');
    fs.writeFileSync(
      path.join(dir, 'toolscope.config.json'),
      JSON.stringify({
        // Trusted: its reads run without asking, so only the rules below stand between a call and the secret.
        mcp: { servers: { fs: { command: 'node', args: [FILESYSTEM, root], trustAnnotations: true } } },
        permissions: {
          deny: [
            `fs__read_text_file(${root}/secret/**)`,
            `fs__read_multiple_files(${root}/secret/**)`,
            // A relative glob is under the server's folder.
            'fs__get_file_info(secret/**)',
          ],
          ask: [`fs__read_multiple_files(${root}/private/**)`],
          allow: ['fs__move_file(notes/**)'],
        },
      }),
    );
    const ts = toolscopes.start(dir);
    await connected(ts, 'fs');
    const post = async (name: string, args: object) => {
      const response = await api(ts, 'POST', '/api/v1/tool-calls', {
        tool_calls: [{ id: 'c', type: 'function', function: { name, arguments: JSON.stringify(args) } }],
      });
      const text = await response.text();
      expect(text).not.toContain(SECRET);
      return JSON.parse(text).results[0] as Json;
    };

    for (const [name, args] of [
      ['fs__read_text_file', { path: 'secret/key.txt' }],
      ['fs__read_text_file', { path: './notes/../secret//key.txt' }],
      ['fs__read_text_file', { path: `${root}/secret/key.txt` }],
      ['fs__read_multiple_files', { paths: [`${root}/notes/a.txt`, `${root}/secret/key.txt`] }],
      ['fs__read_multiple_files', { paths: [`${root}/notes/a.txt`, 'secret/key.txt'] }],
      ['fs__read_multiple_files', { paths: ['notes/a.txt', `${root}/notes/../secret/key.txt`] }],
      ['fs__get_file_info', { path: `${root}/secret/key.txt` }],
    ] as const) {
      const denied = await post(name, args);
      expect(denied, `${name} ${JSON.stringify(args)}`).toMatchObject({
        status: 'denied',
        error: { code: 'PERMISSION_DENIED' },
      });
    }
    // The paths the server reads are the ones the rules judged: relative ones under its folder.
    expect(await post('fs__read_text_file', { path: 'notes/a.txt' })).toMatchObject({
      status: 'succeeded',
      output: { content: 'note a' },
    });
    const both = await post('fs__read_multiple_files', { paths: ['notes/a.txt', `${root}/notes/a.txt`] });
    expect(both).toMatchObject({ status: 'succeeded' });
    expect(JSON.stringify(both.output)).toContain('note a');

    // One path under an ask rule: the call asks.
    const asked = await waitsForApproval(ts, 'fs__read_multiple_files', { paths: ['notes/a.txt', 'private/p.txt'] });
    expect(asked?.approval?.rule).toBe(`ask fs__read_multiple_files(${root}/private/**)`);
    // An allow rule takes a call only when all its paths are allowed: one outside, the default asks.
    expect(await call(ts, 'fs__move_file', { source: 'notes/a.txt', destination: 'notes/b.txt' })).toMatchObject({
      status: 'succeeded',
    });
    expect(fs.readFileSync(path.join(root, 'notes', 'b.txt'), 'utf8')).toBe('note a');
    const outside = await waitsForApproval(ts, 'fs__move_file', {
      source: 'notes/b.txt',
      destination: 'private/b.txt',
    });
    expect(outside?.approval?.rule).toBe('default for write: ask');
    expect(fs.existsSync(path.join(root, 'private', 'b.txt'))).toBe(false);

    // Nothing recorded holds the secret either.
    const traces = ts.store.list({ limit: 100 }).items.map((item) => ts.store.get(item.id));
    expect(traces.length).toBeGreaterThanOrEqual(10);
    expect(JSON.stringify(traces)).not.toContain(SECRET);
  });
});
