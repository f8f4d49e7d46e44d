import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltServer, hasCurrentBuild, startBuiltServer } from '../server/testing/built-server';

/**
 * Team use on the built server (`npm start`): named keys, roles, logins, no self-approval,
 * revocation, scoped agent keys, MCP sessions bound to their principal, the audit trail and its
 * tamper check, approval webhooks signed for a local receiver, and `npm run keys` beside it.
 * One server started with TOOLSCOPE_TOKEN (its bootstrap admin `admin`) for most of it; another
 * without, for local mode.
 */
const built = await hasCurrentBuild('team.built-server.test');
const root = path.resolve(__dirname, '../..');
const TOKEN = 'team-bootstrap-admin-token-0123456789';
const SECRET = 'webhook-secret-for-the-test';

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON answers whose shape they assert on
type Json = any;

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on loopback: keeps what it is sent. */
async function startReceiver() {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.writeHead(204);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook?token=x`,
    received,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

async function until<T>(read: () => T | undefined | null | false, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(!built)('team use (built server)', () => {
  let server: BuiltServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const keys: Record<string, { id: string; token: string }> = {};

  /** A request as the holder of `token` (none: no Authorization). */
  const as = async (token: string | null, method: string, requestPath: string, body?: unknown, extra = {}) => {
    const headers: Record<string, string> = { ...extra };
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${server.base}${requestPath}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'manual',
    });
    const text = await response.text();
    let json: Json = null;
    try {
      json = JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: response.status, headers: response.headers, json, text };
  };
  const key = (name: string) => keys[name]?.token ?? '';
  const writeCall = (id: string, file: string, extra: object = {}) => ({
    ...extra,
    wait: false,
    tool_calls: [
      {
        id,
        type: 'function',
        function: { name: 'write_file', arguments: JSON.stringify({ path: file, content: 'team' }) },
      },
    ],
  });

  beforeAll(async () => {
    receiver = await startReceiver();
    server = await startBuiltServer(
      'toolscope-team-',
      { approvals: { notify: [{ url: receiver.url, secret: SECRET }], link_base: 'https://toolscope.example' } },
      { TOOLSCOPE_TOKEN: TOKEN },
    );
    for (const [name, role] of [
      ['bot', 'agent'],
      ['other-bot', 'agent'],
      ['rita', 'reviewer'],
      ['vic', 'viewer'],
      ['ada', 'admin'],
    ] as const) {
      const made = await as(TOKEN, 'POST', '/api/v1/keys', { name, role });
      expect(made.status).toBe(201);
      keys[name] = { id: made.json.key.id, token: made.json.token };
    }
  }, 180_000);

  afterAll(async () => {
    server?.stop();
    await receiver?.close();
  });

  it('makes named keys: the token shown once, stored hashed, never listed; names are unique', async () => {
    const made = await as(TOKEN, 'POST', '/api/v1/keys', { name: 'once', role: 'viewer' });
    expect(made.status).toBe(201);
    expect(made.json).toEqual({
      key: { id: expect.stringMatching(/^key_/), name: 'once', role: 'viewer', created_at: expect.any(String) },
      token: expect.stringMatching(/^tsk_/),
    });
    const listed = await as(TOKEN, 'GET', '/api/v1/keys');
    expect(listed.status).toBe(200);
    expect(listed.json.keys.map((k: Json) => k.name)).toEqual(['bot', 'other-bot', 'rita', 'vic', 'ada', 'once']);
    for (const k of listed.json.keys) {
      expect(Object.keys(k).sort()).toEqual(['created_at', 'id', 'last_used_at', 'name', 'revoked_at', 'role']);
    }
    expect(listed.text).not.toContain(made.json.token);
    const db = new Database(path.join(server.dir, 'toolscope.db'), { readonly: true });
    try {
      const stored = JSON.stringify(db.prepare('SELECT * FROM access_keys').all());
      expect(stored).not.toContain(made.json.token);
    } finally {
      db.close();
    }
    expect((await as(TOKEN, 'POST', '/api/v1/keys', { name: 'once', role: 'admin' })).json.error.code).toBe(
      'ALREADY_EXISTS',
    );
    expect((await as(TOKEN, 'POST', '/api/v1/keys', { name: 'x', role: 'root' })).status).toBe(400);
  });

  it('checks every request: no key or an unknown one 401, a role that may not 403 naming role and action', async () => {
    expect((await as(null, 'GET', '/api/v1/traces')).json.error.code).toBe('UNAUTHENTICATED');
    expect((await as('tsk_nobody', 'GET', '/api/v1/traces')).status).toBe(401);
    const forbidden = await as(key('vic'), 'POST', '/api/v1/faults', {
      name: 'x',
      tool: 'calculator',
      kind: 'timeout',
    });
    expect(forbidden.status).toBe(403);
    expect(forbidden.json.error).toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringMatching(/viewer.*faults\.write/),
    });
    expect((await as(key('bot'), 'GET', '/api/v1/keys')).status).toBe(403);
    expect((await as(key('rita'), 'GET', '/api/v1/keys')).status).toBe(403);
    expect((await as(key('ada'), 'GET', '/api/v1/keys')).status).toBe(200);
    // Pages: an agent key reads no page; a viewer does.
    expect((await as(key('bot'), 'GET', '/approvals')).status).toBe(403);
    expect((await as(key('vic'), 'GET', '/approvals')).status).toBe(200);
  });

  it('records who made a call; an agent cannot decide; no one decides their own call; a reviewer does', async () => {
    const sent = await as(
      key('bot'),
      'POST',
      '/api/v1/tool-calls',
      writeCall('w1', 'team/one.md', { session_id: 'team-1' }),
    );
    expect(sent.status).toBe(200);
    const traceId = sent.json.results[0].trace_id;
    expect(sent.json.results[0].status).toBe('awaiting_approval');

    const agent = await as(key('bot'), 'POST', `/api/v1/approvals/${traceId}`, { decision: 'approve' });
    expect(agent.status).toBe(403);
    expect(agent.json.error.code).toBe('FORBIDDEN');
    expect((await as(key('vic'), 'POST', `/api/v1/approvals/${traceId}`, { decision: 'approve' })).status).toBe(403);

    // An admin's own call: nobody decides their own, whatever their role.
    const own = await as(TOKEN, 'POST', '/api/v1/tool-calls', writeCall('w2', 'team/own.md'));
    const ownId = own.json.results[0].trace_id;
    const self = await as(TOKEN, 'POST', `/api/v1/approvals/${ownId}`, { decision: 'approve' });
    expect(self.status).toBe(403);
    expect(self.json.error.code).toBe('SELF_APPROVAL');

    const decided = await as(key('rita'), 'POST', `/api/v1/approvals/${traceId}`, {
      decision: 'approve',
      reason: 'fine',
    });
    expect(decided.status).toBe(200);
    let read = await as(key('vic'), 'GET', `/api/v1/traces/${traceId}`);
    for (let i = 0; i < 100 && read.json.status !== 'succeeded'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      read = await as(key('vic'), 'GET', `/api/v1/traces/${traceId}`);
    }
    expect(read.json).toMatchObject({
      principal: { name: 'bot', role: 'agent' },
      approval: { decision: 'approved', by: 'rita', decided_by: { name: 'rita', role: 'reviewer' } },
    });
    // The list shows who made each call.
    const listed = await as(key('vic'), 'GET', '/api/v1/traces?session=team-1');
    expect(listed.json.items[0].principal).toMatchObject({ name: 'bot', role: 'agent' });
    // Another admin may decide the admin's call.
    expect((await as(key('ada'), 'POST', `/api/v1/approvals/${ownId}`, { decision: 'deny', reason: 'x' })).status).toBe(
      200,
    );
  });

  it("lets an agent read its own calls and events only: another principal's trace is a 404", async () => {
    const mine = await as(key('bot'), 'POST', '/api/v1/tool-calls', {
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'calculator', arguments: '{"expression":"1+1"}' } }],
    });
    const theirs = await as(key('other-bot'), 'POST', '/api/v1/tool-calls', {
      tool_calls: [{ id: 'c2', type: 'function', function: { name: 'calculator', arguments: '{"expression":"2+2"}' } }],
    });
    const mineId = mine.json.results[0].trace_id;
    const theirsId = theirs.json.results[0].trace_id;
    expect((await as(key('bot'), 'GET', `/api/v1/traces/${mineId}`)).status).toBe(200);
    const hidden = await as(key('bot'), 'GET', `/api/v1/traces/${theirsId}`);
    expect(hidden.status).toBe(404);
    const list = await as(key('bot'), 'GET', '/api/v1/traces?limit=500');
    const ids = list.json.items.map((item: Json) => item.id);
    expect(ids).toContain(mineId);
    expect(ids).not.toContain(theirsId);
    expect(list.json.items.every((item: Json) => item.principal?.name === 'bot')).toBe(true);
    expect((await as(key('bot'), 'GET', '/api/v1/sessions')).status).toBe(403);

    // Its event stream carries its own calls only.
    const controller = new AbortController();
    const stream = await fetch(`${server.base}/api/v1/events`, {
      headers: { authorization: `Bearer ${key('bot')}` },
      signal: controller.signal,
    });
    expect(stream.status).toBe(200);
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    const reading = (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        text += new TextDecoder().decode(value);
      }
    })().catch(() => {});
    await until(() => text.includes('event: ping'));
    const other = await as(key('other-bot'), 'POST', '/api/v1/tool-calls', {
      tool_calls: [{ id: 'c3', type: 'function', function: { name: 'calculator', arguments: '{"expression":"3"}' } }],
    });
    const own = await as(key('bot'), 'POST', '/api/v1/tool-calls', {
      tool_calls: [{ id: 'c4', type: 'function', function: { name: 'calculator', arguments: '{"expression":"4"}' } }],
    });
    await until(() => text.includes(own.json.results[0].trace_id) && text.includes('"type":"finish"'));
    expect(text).not.toContain(other.json.results[0].trace_id);
    controller.abort();
    await reading;
  });

  it('people log in with their own key: a server-side session, ended by logout and by revoking the key', async () => {
    const login = async (token: string) =>
      fetch(`${server.base}/auth/login`, {
        method: 'POST',
        redirect: 'manual',
        body: new URLSearchParams({ token, next: '/approvals' }),
      });
    const agent = await login(key('bot'));
    expect(agent.headers.get('location')).toContain('error=agent-key');
    const answer = await login(key('rita'));
    expect(answer.status).toBe(303);
    const cookie = answer.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    expect(cookie).not.toContain(key('rita'));
    const session = cookie.split(';')[0] as string;
    expect((await as(null, 'GET', '/api/v1/approvals', undefined, { cookie: session })).status).toBe(200);
    const logout = await fetch(`${server.base}/auth/logout`, {
      method: 'POST',
      headers: { cookie: session },
      redirect: 'manual',
    });
    expect(logout.status).toBe(303);
    expect((await as(null, 'GET', '/api/v1/approvals', undefined, { cookie: session })).status).toBe(401);

    // Revoking a key ends its logins and its requests at once.
    const again = (await login(key('vic'))).headers.get('set-cookie')?.split(';')[0] as string;
    expect((await as(null, 'GET', '/api/v1/traces', undefined, { cookie: again })).status).toBe(200);
    const revoked = await as(key('ada'), 'DELETE', `/api/v1/keys/${keys.vic?.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.json.key.revoked_at).toEqual(expect.any(String));
    expect((await as(null, 'GET', '/api/v1/traces', undefined, { cookie: again })).status).toBe(401);
    expect((await as(key('vic'), 'GET', '/api/v1/traces')).status).toBe(401);
    expect((await as(key('ada'), 'DELETE', '/api/v1/keys/key_nope')).status).toBe(404);
  });

  it('rate limits wrong keys per address: 429 with a growing Retry-After after 5 failures', async () => {
    const attempt = () =>
      fetch(`${server.base}/auth/login`, {
        method: 'POST',
        redirect: 'manual',
        body: new URLSearchParams({ token: 'tsk_wrong-wrong-wrong', next: '/' }),
      });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await attempt()).status);
    expect(statuses).toEqual([303, 303, 303, 303, 303]);
    const limited = await attempt();
    expect(limited.status).toBe(429);
    const first = Number(limited.headers.get('retry-after'));
    expect(first).toBeGreaterThanOrEqual(1);
    await new Promise((resolve) => setTimeout(resolve, first * 1000 + 100));
    expect((await attempt()).status).toBe(303);
    const later = await attempt();
    expect(later.status).toBe(429);
    expect(Number(later.headers.get('retry-after'))).toBeGreaterThan(first);
  }, 30_000);

  it('scopes an agent key: only its tools are listed and callable, its deny rule wins', async () => {
    const made = await as(TOKEN, 'POST', '/api/v1/keys', {
      name: 'calc-bot',
      role: 'agent',
      tools: ['calculator', 'read_file'],
      permissions: { deny: ['read_file(secret/**)'] },
    });
    expect(made.status).toBe(201);
    const token = made.json.token;
    const tools = await as(token, 'GET', '/api/v1/tools?format=openai');
    expect(tools.json.tools.map((t: Json) => t.function.name).sort()).toEqual(['calculator', 'read_file']);
    const calls = await as(token, 'POST', '/api/v1/tool-calls', {
      tool_calls: [
        { id: 'a', type: 'function', function: { name: 'calculator', arguments: '{"expression":"6*7"}' } },
        { id: 'b', type: 'function', function: { name: 'write_file', arguments: '{"path":"x.md","content":"x"}' } },
        { id: 'c', type: 'function', function: { name: 'read_file', arguments: '{"path":"secret/key.txt"}' } },
      ],
    });
    const [a, b, c] = calls.json.results;
    expect(a).toMatchObject({ status: 'succeeded', output: { result: 42 } });
    expect(b).toMatchObject({ status: 'denied', error: { code: 'PERMISSION_DENIED' } });
    expect(b.error.message).toContain('calc-bot');
    expect(c).toMatchObject({ status: 'denied', error: { code: 'PERMISSION_DENIED' } });
    expect(c.error.message).toContain('read_file(secret/**)');

    // MCP: the same tools, and its calls are its own.
    const client = new Client({ name: 'scoped', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.base}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['calculator', 'read_file']);
    } finally {
      await client.close();
    }
  });

  it('binds an MCP session to the principal that opened it: another can neither use nor end it', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${server.base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key('bot')}` } },
    });
    const client = new Client({ name: 'owner', version: '1' });
    await client.connect(transport);
    try {
      const sessionId = transport.sessionId as string;
      const headers = { 'mcp-session-id': sessionId, accept: 'application/json, text/event-stream' };
      const used = await as(key('other-bot'), 'POST', '/mcp', { jsonrpc: '2.0', id: 9, method: 'tools/list' }, headers);
      expect(used.status).toBe(404);
      const ended = await as(key('other-bot'), 'DELETE', '/mcp', undefined, headers);
      expect(ended.status).toBe(404);
      // Still the owner's.
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      const call = await client.callTool({ name: 'calculator', arguments: { expression: '5*5' } });
      expect(call.structuredContent).toMatchObject({ result: 25 });
    } finally {
      await client.close();
    }
  });

  it('keeps an audit trail, hash-chained: who, what, on what; and finds an entry edited in the database', async () => {
    const all = await as(key('rita'), 'GET', '/api/v1/audit?limit=500');
    expect(all.status).toBe(200);
    const kinds = new Set(all.json.entries.map((e: Json) => e.kind));
    for (const kind of ['key.created', 'key.revoked', 'approval.decided', 'login', 'login.failed', 'logout']) {
      expect(kinds).toContain(kind);
    }
    const decision = all.json.entries.find((e: Json) => e.kind === 'approval.decided' && e.principal.name === 'rita');
    expect(decision).toMatchObject({
      seq: expect.any(Number),
      at: expect.any(String),
      principal: { name: 'rita', role: 'reviewer' },
      target: expect.any(String),
      detail: { decision: 'approve' },
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const byRita = await as(key('rita'), 'GET', '/api/v1/audit?principal=rita&kind=approval.decided');
    expect(byRita.json.entries.every((e: Json) => e.principal.name === 'rita' && e.kind === 'approval.decided')).toBe(
      true,
    );
    expect((await as(key('bot'), 'GET', '/api/v1/audit')).status).toBe(403);
    expect((await as(key('rita'), 'GET', '/api/v1/audit/verify')).json).toEqual({
      ok: true,
      entries: expect.any(Number),
      first_bad_seq: null,
    });
    // Not through SQLite: the triggers refuse to change or remove an entry.
    const db = new Database(path.join(server.dir, 'toolscope.db'));
    try {
      expect(() => db.prepare('DELETE FROM audit_log WHERE seq = ?').run(decision.seq)).toThrow(/append-only/);
      // Behind the triggers' back: the chain shows it.
      db.exec('DROP TRIGGER audit_log_no_update');
      db.prepare('UPDATE audit_log SET detail = \'{"decision":"deny"}\' WHERE seq = ?').run(decision.seq);
    } finally {
      db.close();
    }
    expect((await as(key('rita'), 'GET', '/api/v1/audit/verify')).json).toMatchObject({
      ok: false,
      first_bad_seq: decision.seq,
    });
  });

  it('tells webhooks of approvals requested and decided, signed with the secret', async () => {
    const hooks = await until(() => {
      const bodies = receiver.received.map((r) => JSON.parse(r.body) as Json);
      return bodies.some((b) => b.type === 'approval.decided' && b.decided_by?.name === 'rita') ? bodies : null;
    });
    const requested = hooks.find((b) => b.type === 'approval.requested' && b.principal?.name === 'bot');
    expect(requested).toMatchObject({
      tool: 'write_file',
      arguments: { path: 'team/one.md', content: 'team' },
      principal: { name: 'bot', role: 'agent' },
      rule: expect.stringContaining('ask'),
      url: expect.stringMatching(/^https:\/\/toolscope\.example\/approvals\?trace=/),
    });
    for (const { headers, body } of receiver.received) {
      const expected = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
      expect(headers['x-toolscope-signature']).toBe(expected);
      expect(headers['content-type']).toBe('application/json');
    }
  });

  it('makes and revokes keys with npm run keys while the server runs', async () => {
    const run = (...args: string[]) =>
      promisify(execFile)(process.execPath, ['node_modules/tsx/dist/cli.mjs', 'scripts/keys.ts', ...args, '--json'], {
        cwd: root,
        env: { ...process.env, TOOLSCOPE_DATA_DIR: server.dir, TOOLSCOPE_CONFIG: '' },
      });
    const created = JSON.parse((await run('create', '--name', 'cli-made', '--role', 'viewer')).stdout);
    expect(created.key).toMatchObject({ name: 'cli-made', role: 'viewer' });
    expect((await as(created.token, 'GET', '/api/v1/traces')).status).toBe(200);
    const listed = JSON.parse((await run('list')).stdout);
    expect(listed.keys.map((k: Json) => k.name)).toContain('cli-made');
    await run('revoke', 'cli-made');
    expect((await as(created.token, 'GET', '/api/v1/traces')).status).toBe(401);
    const audit = await as(key('ada'), 'GET', `/api/v1/audit?target=${created.key.id}`);
    expect(audit.json.entries.map((e: Json) => [e.kind, e.principal.id])).toEqual([
      ['key.revoked', 'cli'],
      ['key.created', 'cli'],
    ]);
  }, 60_000);
});

describe.skipIf(!built)('local mode (built server)', () => {
  let server: BuiltServer;
  beforeAll(async () => {
    server = await startBuiltServer('toolscope-local-');
  }, 180_000);
  afterAll(() => server?.stop());

  it('serves a loopback server with no key to anyone on the machine, and says so; the first key ends it', async () => {
    expect((await fetch(`${server.base}/api/v1/traces`)).status).toBe(200);
    const page = await (await fetch(`${server.base}/approvals`)).text();
    expect(page).toContain('Local mode: anyone on this machine can approve');
    const made = await fetch(`${server.base}/api/v1/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'me', role: 'admin' }),
    });
    expect(made.status).toBe(201);
    const { token } = (await made.json()) as { token: string };
    expect((await fetch(`${server.base}/api/v1/traces`)).status).toBe(401);
    expect((await fetch(`${server.base}/`, { redirect: 'manual' })).status).toBe(307);
    expect(
      (await fetch(`${server.base}/api/v1/traces`, { headers: { authorization: `Bearer ${token}` } })).status,
    ).toBe(200);
  });
});
