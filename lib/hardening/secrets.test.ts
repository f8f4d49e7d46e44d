import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltServer, hasCurrentBuild, startBuiltServer, waitForMcpServer } from '../server/testing/built-server';

const REDACTED = '[REDACTED]';

/**
 * Secrets never leave the server, nor reach its disk: known secrets are planted in arguments (by
 * key at any depth, by shape, in URLs, in headers, in arguments that are not JSON) and in the
 * server's own environment, echoed back by tools (a shell, a file written then read, an HTTP
 * echo server, the calculator's errors) and by an upstream MCP server, in success and error
 * bodies. Afterwards no API answer, page, export, model message or event stream, and no byte of
 * the SQLite files (database, WAL, shared memory), holds any of them.
 * Needs a current build (`node scripts/build.mjs`; `npm test` builds first); skipped without one.
 */
const built = await hasCurrentBuild('secrets.test');
const FIXTURE = path.resolve('lib/hardening/testing/echo-mcp-server.mjs');

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON answers whose shape they assert on
type Json = any;

/** Every secret planted, each unique enough that finding it anywhere means it leaked. */
const SECRETS = {
  /** Under `api_key`, and repeated in other fields of the same call. */
  byKey: 'hunter2-xyz-key-5f1c0a9e',
  /** Under `password`, 100 levels down. */
  deep: 'deep-secret-100-levels-7c2d',
  /** Under `token`, 10,000 levels down. */
  deeper: 'deeper-secret-10k-levels-a1b2',
  sk: 'sk-proj-T3stS3cr3tK3yABCDEFGH1234',
  ghp: 'ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8',
  akia: 'AKIAZ7QW3RT5YU8IO1PL',
  jwt: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJzZWNyZXQtdXNlciJ9.c2lnbmF0dXJlLXNlY3JldC14eXo',
  urlPassword: 'url-pass-9d8e7f6a',
  urlToken: 'url-token-3b4c5d6e7f',
  header: 'header-key-0a1b2c3d4e',
  /** In the server's environment as MY_SERVICE_TOKEN; the echo server sends it back. */
  environment: 'env-service-token-55aa66bb77',
  /** Given to the MCP server in the config's `env`, which it returns. */
  mcpEnvironment: 'mcp-env-key-8899aabbcc',
  mcpArgument: 'mcp-arg-secret-3344eeff',
  malformed: 'malformed-secret-1122ccdd',
  fileContent: 'file-password-77ee88ff99',
};
const ALL = Object.entries(SECRETS);
/** Not a secret, planted beside them: found where they are not, it shows the checks read real data. */
const CONTROL = 'visible-control-marker-31337';

/** The names of the secrets found in a text. */
function leaksIn(text: string): string[] {
  return ALL.filter(([, secret]) => text.includes(secret)).map(([name]) => name);
}

/** `{ a: { a: … leaf } }`, `depth` levels, built without recursion. */
function nested(depth: number, leaf: Record<string, unknown>): Record<string, unknown> {
  let value: Record<string, unknown> = leaf;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

/** What the echo server was sent: proof the secrets went out as planted, before coming back. */
const received: string[] = [];

/** An HTTP server that answers with everything it was sent (and the server's secret): `/fail` with a 500. */
function startEchoServer(): Promise<http.Server> {
  const echo = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      received.push(JSON.stringify({ url: request.url, headers: request.headers, body }));
      const answer = JSON.stringify({
        method: request.method,
        url: request.url,
        headers: request.headers,
        body,
        reflected: `MY_SERVICE_TOKEN is ${SECRETS.environment}`,
      });
      response.writeHead(request.url?.startsWith('/fail') ? 500 : 200, { 'content-type': 'application/json' });
      response.end(answer);
    });
  });
  return new Promise((resolve) => echo.listen(0, '127.0.0.1', () => resolve(echo)));
}

function toolCall(id: string, name: string, args: unknown) {
  return {
    id,
    type: 'function',
    function: { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) },
  };
}

describe.skipIf(!built)('the built server: secrets never leave it', () => {
  let server: BuiltServer;
  let echo: http.Server;
  let workspace: string;
  const answers: string[] = [];
  const traceIds: string[] = [];

  async function call(calls: unknown[], extra: Record<string, unknown> = {}): Promise<Json[]> {
    const response = await fetch(`${server.base}/api/v1/tool-calls`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ session_id: 'secrets-session', tool_calls: calls, ...extra }),
    });
    const text = await response.text();
    answers.push(text);
    expect(response.status, text.slice(0, 500)).toBe(200);
    const results = JSON.parse(text).results as Json[];
    for (const result of results) traceIds.push(result.trace_id);
    return results;
  }

  async function text(requestPath: string): Promise<{ status: number; body: string }> {
    const response = await fetch(`${server.base}${requestPath}`);
    return { status: response.status, body: await response.text() };
  }

  beforeAll(async () => {
    echo = await startEchoServer();
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-secrets-workspace-'));
    const echoPort = (echo.address() as AddressInfo).port;
    server = await startBuiltServer(
      'toolscope-secrets-built-',
      {
        workspace,
        policies: { run_shell: 'allow', write_file: 'allow', http_request: 'allow' },
        shell: { allow: ['echo', 'cat', 'printenv', 'env', 'sed'] },
        http: { allow: ['127.0.0.1', `127.0.0.1:${echoPort}`] },
        mcp: {
          servers: {
            echo: {
              command: 'node',
              args: [FIXTURE],
              env: { ECHO_API_KEY: SECRETS.mcpEnvironment },
              trustAnnotations: true,
            },
          },
        },
      },
      { MY_SERVICE_TOKEN: SECRETS.environment },
    );
    await waitForMcpServer(server, 'echo');
  }, 120_000);

  afterAll(() => {
    server?.stop();
    echo?.close();
    if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
  });

  it('plants secrets by key (100 and 10,000 levels down), by shape and in URLs; a shell echoes them', async () => {
    const url = `https://admin:${SECRETS.urlPassword}@example.test/cb?token=${SECRETS.urlToken}&page=2`;
    const results = await call(
      [
        toolCall('shell-echo', 'run_shell', {
          command: ['echo', SECRETS.sk, SECRETS.ghp, SECRETS.akia, SECRETS.jwt, url],
        }),
        toolCall('shell-fail', 'run_shell', { command: ['cat', `missing-${SECRETS.sk}.txt`, SECRETS.ghp] }),
        toolCall('shell-environ', 'run_shell', { command: ['cat', `/proc/${server.child.pid}/environ`] }),
        // The same as text (an environ is NUL-separated, which run_shell leaves out as binary).
        toolCall('shell-environ-text', 'run_shell', {
          command: ['sed', 's/\\x0/\\n/g', `/proc/${server.child.pid}/environ`],
        }),
        toolCall('shell-printenv', 'run_shell', { command: ['printenv'] }),
        toolCall('mcp-deep', 'echo__echo', {
          api_key: SECRETS.byKey,
          note: `my key is ${SECRETS.byKey}`,
          control: CONTROL,
          deep: nested(100, { password: SECRETS.deep, echo: `again ${SECRETS.deep}` }),
          url,
        }),
      ],
      { assistant_message: { text: `Using ${SECRETS.sk} and ${SECRETS.environment}`, model: 'gpt-secrets' } },
    );
    expect(results.map((r) => r.status)).toEqual([
      'succeeded',
      'failed',
      expect.any(String),
      expect.any(String),
      'succeeded',
      'succeeded',
    ]);
    // The sandbox refuses the server's environ, whichever way it is read.
    expect(results[3]?.status).toBe(results[2]?.status);
    expect(results[0].output).toContain(REDACTED);
    expect(results[5].output).toContain(REDACTED);
    // JSON.stringify recurses: 10,000 levels are written as text.
    const deep = `${'{"a":'.repeat(10_000)}{"token":"${SECRETS.deeper}"}${'}'.repeat(10_000)}`;
    const deeper = await call([toolCall('mcp-deeper', 'echo__echo', deep)]);
    expect(deeper).toHaveLength(1);
  }, 60_000);

  it('plants secrets in a file written then read, in a path that is not there, and in the calculator', async () => {
    await call([
      toolCall('write', 'write_file', {
        path: 'notes.txt',
        content: `token: ${SECRETS.sk}\n{"password": "${SECRETS.fileContent}"}\nMY_SERVICE_TOKEN=${SECRETS.environment}\n`,
      }),
    ]);
    const read = await call([
      toolCall('read', 'read_file', { path: 'notes.txt' }),
      toolCall('read-missing', 'read_file', { path: `missing/${SECRETS.ghp}.txt` }),
      toolCall('calc-shape', 'calculator', { expression: `${SECRETS.akia} + 1` }),
      toolCall('calc-key', 'calculator', { expression: '1 +', api_key: SECRETS.byKey }),
    ]);
    expect(read.map((r) => r.status)).toEqual(['succeeded', 'failed', 'failed', 'failed']);
    expect(read[0].output.content).toContain(REDACTED);
  }, 30_000);

  it('plants secrets in the headers, URL and body of http_request to an echo server, in success and error', async () => {
    const port = (echo.address() as AddressInfo).port;
    const args = (route: string) => ({
      url: `http://127.0.0.1:${port}${route}?token=${SECRETS.urlToken}&q=1`,
      method: 'POST',
      headers: { 'X-Api-Key': SECRETS.header, Authorization: `Bearer ${SECRETS.jwt}` },
      body: JSON.stringify({ api_key: SECRETS.byKey, note: `my key is ${SECRETS.byKey}` }),
    });
    const results = await call([
      toolCall('http-ok', 'http_request', args('/echo')),
      toolCall('http-fail', 'http_request', args('/fail')),
    ]);
    expect(results[0].status).toBe('succeeded');
    expect(JSON.stringify(results[0].output)).toContain(REDACTED);
    const sent = received.join('\n');
    for (const secret of [SECRETS.header, SECRETS.jwt, SECRETS.byKey, SECRETS.urlToken]) expect(sent).toContain(secret);
    await call([
      toolCall('http-userinfo', 'http_request', { url: `http://admin:${SECRETS.urlPassword}@127.0.0.1:${port}/echo` }),
    ]);
  }, 30_000);

  it('plants secrets in arguments that are not JSON, an unknown tool, and an MCP server that fails and throws', async () => {
    const results = await call([
      toolCall('malformed', 'calculator', `{"api_key": "${SECRETS.malformed}", "expression": "1+`),
      toolCall('unknown', SECRETS.ghp, { api_key: SECRETS.byKey }),
      toolCall('mcp-fail', 'echo__fail', { secret: SECRETS.mcpArgument, note: `said ${SECRETS.mcpArgument}` }),
      toolCall('mcp-throw', 'echo__throw', { token: SECRETS.mcpArgument, note: `said ${SECRETS.mcpArgument}` }),
      toolCall('mcp-env', 'echo__environment', {}),
    ]);
    expect(results.map((r) => r.status)).toEqual(['failed', 'failed', 'failed', 'failed', 'succeeded']);
    expect(results[4].output).toContain(REDACTED);
    // The server logged the arguments to stderr; its tail, shown with it, has them scrubbed.
    const { json } = await server.send('GET', '/api/v1/mcp/servers');
    const tail = json.servers.find((s: Json) => s.name === 'echo').stderr_tail.join('\n');
    expect(tail).toMatch(/echo-fixture: fail called with .*\[REDACTED\]/);
  }, 30_000);

  it('no API answer, page, export or event stream holds any of them', async () => {
    expect(traceIds.length).toBeGreaterThanOrEqual(15);
    for (const answer of answers) expect(leaksIn(answer)).toEqual([]);
    const paths = [
      '/api/v1/traces?limit=200',
      `/api/v1/traces?q=${encodeURIComponent('secret')}&limit=200`,
      '/api/v1/traces/export',
      '/api/v1/sessions',
      '/api/v1/sessions/secrets-session',
      '/api/v1/sessions/secrets-session/export',
      '/api/v1/mcp/servers',
      '/api/v1/approvals',
      '/api/v1/tools',
      '/',
      '/sessions/secrets-session',
      '/tools',
    ];
    for (const id of traceIds) paths.push(`/api/v1/traces/${id}`, `/api/v1/traces/${id}/export`, `/traces/${id}`);
    let controlSeen = 0;
    for (const requestPath of paths) {
      const { status, body } = await text(requestPath);
      expect(status, requestPath).toBeLessThan(400);
      expect(leaksIn(body), requestPath).toEqual([]);
      if (body.includes(CONTROL)) controlSeen++;
    }
    // The control is in the arguments, output and model message of its call: lists, exports, detail, page.
    expect(controlSeen).toBeGreaterThanOrEqual(5);
    // Every trace's model message is in its detail (checked above); make sure they are there at all.
    const detail = await server.send('GET', `/api/v1/traces/${traceIds[0]}`);
    expect(typeof detail.json.model_message).toBe('string');
  }, 120_000);

  it('the event stream, replayed from its start, holds none of them', async () => {
    const controller = new AbortController();
    const response = await fetch(`${server.base}/api/v1/events?last_event_id=1`, { signal: controller.signal });
    expect(response.status).toBe(200);
    const reader = response.body?.getReader();
    let stream = '';
    const decoder = new TextDecoder();
    const until = Date.now() + 1_500;
    while (reader && Date.now() < until) {
      const next = await Promise.race([
        reader.read(),
        new Promise<null>((resolve) => setTimeout(() => resolve(null), until - Date.now())),
      ]);
      if (!next || next.done) break;
      stream += decoder.decode(next.value, { stream: true });
    }
    controller.abort();
    expect(stream.length).toBeGreaterThan(0);
    expect(leaksIn(stream)).toEqual([]);
  }, 30_000);

  it('no byte of the SQLite files (database, WAL, shared memory) nor of the data folder holds any of them', () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else files.push(full);
      }
    };
    walk(server.dir);
    // The config file is the test's own (it holds the MCP server's env as configured), not the server's.
    files.splice(files.indexOf(path.join(server.dir, 'toolscope.config.json')), 1);
    const names = files.map((file) => path.basename(file));
    expect(names).toEqual(expect.arrayContaining(['toolscope.db', 'toolscope.db-wal', 'toolscope.db-shm']));
    let control = false;
    for (const file of files) {
      const bytes = fs.readFileSync(file);
      if (bytes.includes(Buffer.from(CONTROL, 'utf8'))) control = true;
      const found = ALL.filter(([, secret]) => bytes.includes(Buffer.from(secret, 'utf8'))).map(([name]) => name);
      expect(found, path.relative(server.dir, file)).toEqual([]);
    }
    expect(control, 'the control marker is in the database files').toBe(true);
  });
});
