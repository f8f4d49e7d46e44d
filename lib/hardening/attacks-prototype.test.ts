import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runToolCalls } from '../calls/run-tool-calls';
import { loadConfig } from '../config';
import { guardRequest } from '../http/middleware/request-guard';
import { type BuiltServer, hasCurrentBuild, startBuiltServer } from '../server/testing/built-server';
import { testToolscopes } from '../server/testing/test-toolscopes';
import { rawRequest } from './testing/raw-http';

/**
 * Prototype pollution: `__proto__`, `constructor.prototype` and Object.prototype's own names in
 * arguments, the envelope, query strings, headers, tool names, rules, fault rules and the config
 * file. In the built server, checked by behaviour afterwards (keys a polluted prototype would
 * change: a policy, a limit, a tool lookup); in process, by Object.prototype itself.
 */
const built = await hasCurrentBuild('attacks-prototype.test');

/** What a polluted Object.prototype would carry: names the server looks up on plain objects. */
const PAYLOAD =
  '{"polluted":"yes","calculator":"deny","deny":["calculator"],"maxBodyBytes":1,"maxBatchSize":0,"timeoutMs":1,"code":"POLLUTED","isAdmin":true}';

const PROTO_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
];

/** JSON texts (not `JSON.stringify`, which cannot write a `__proto__` key) that try to pollute. */
const argumentAttacks = [
  `{"__proto__":${PAYLOAD},"expression":"1+1"}`,
  `{"constructor":{"prototype":${PAYLOAD}},"expression":"1+1"}`,
  `{"expression":"1+1","a":{"__proto__":${PAYLOAD}},"b":[{"constructor":{"prototype":${PAYLOAD}}}]}`,
  `{"__proto__":{"__proto__":${PAYLOAD}},"expression":"2+2"}`,
];

function toolCallsBody(args: string, extra = '', name = 'calculator', id = 'call_proto'): string {
  return `{${extra}"tool_calls":[{"id":"${id}","type":"function","function":{"name":"${name}","arguments":${JSON.stringify(args)}}},{"id":"${id}_obj","type":"function","function":{"name":"${name}","arguments":${args}}}]}`;
}

describe.skipIf(!built)('prototype pollution (built server)', () => {
  let server: BuiltServer;
  let polluted: BuiltServer | undefined;
  const post = (body: string, url = '/api/v1/tool-calls', headers: Record<string, string> = {}) =>
    rawRequest(server.port, {
      method: 'POST',
      path: url,
      headers: { 'content-type': 'application/json', ...headers },
      body,
    });

  beforeAll(async () => {
    server = await startBuiltServer('toolscope-attack-proto-');
  }, 90_000);

  afterAll(() => {
    server?.stop();
    polluted?.stop();
  });

  /** The behaviour a polluted prototype would change, checked on `target`. */
  async function expectUnpolluted(target: BuiltServer) {
    const calls = Array.from({ length: 3 }, (_, i) => ({
      id: `after_${i}`,
      type: 'function',
      function: { name: 'calculator', arguments: JSON.stringify({ expression: `${i}+1` }) },
    }));
    // Allowed (not denied by a polluted policy), a batch of 3 (not a polluted maxBatchSize 0), a body over 1 byte.
    const answer = await target.send('POST', '/api/v1/tool-calls', { session_id: 'x'.repeat(200), tool_calls: calls });
    expect(answer.status).toBe(200);
    expect(answer.json.results.map((r: { success: boolean }) => r.success)).toEqual([true, true, true]);
    for (const name of [...PROTO_KEYS, 'polluted']) {
      const lookup = await target.send('POST', '/api/v1/tool-calls', {
        tool_calls: [{ id: 'lookup', type: 'function', function: { name, arguments: '{}' } }],
      });
      expect(lookup.status, name).toBe(200);
      expect(lookup.json.results[0].error.code, name).toBe('UNKNOWN_TOOL');
    }
    const tools = await target.send('GET', '/api/v1/tools?format=openai');
    expect(tools.json.tools.map((t: { function: { name: string } }) => t.function.name)).not.toContain('polluted');
    const list = await target.send('GET', '/api/v1/traces?limit=3');
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.json)).not.toContain('POLLUTED');
  }

  it('in tool arguments (as JSON text and as objects): kept as data, the call still validated', async () => {
    for (const args of argumentAttacks) {
      const answer = await post(toolCallsBody(args));
      expect(answer.status).toBe(200);
      const { results } = JSON.parse(answer.text) as {
        results: { success: boolean; error: { code: string } | null }[];
      };
      // The schema takes no such fields: INVALID_ARGUMENTS, not a crash and not a pass.
      for (const result of results) expect(result.error?.code).toBe('INVALID_ARGUMENTS');
    }
    await expectUnpolluted(server);
  });

  it('in the request envelope, its calls and their ids and names', async () => {
    for (const body of [
      `{"__proto__":${PAYLOAD},"tool_calls":[{"id":"e1","function":{"name":"calculator","arguments":"{\\"expression\\":\\"1\\"}"}}]}`,
      `{"constructor":{"prototype":${PAYLOAD}},"tool_calls":[{"id":"e2","function":{"name":"calculator","arguments":"{}"}}]}`,
      `{"tool_calls":[{"__proto__":${PAYLOAD},"id":"e3","function":{"__proto__":${PAYLOAD},"name":"calculator","arguments":"{}"}}]}`,
      `{"tool_calls":{"__proto__":[]}}`,
      `{"tool_use":[{"type":"tool_use","id":"__proto__","name":"constructor","input":{"__proto__":${PAYLOAD}}}]}`,
      `{"session_id":"__proto__","assistant_message":{"__proto__":${PAYLOAD}},"tool_calls":[{"id":"constructor","function":{"name":"calculator","arguments":"{\\"expression\\":\\"3\\"}"}}]}`,
      `{"replay_from":"__proto__","tool_calls":[{"id":"e5","function":{"name":"calculator","arguments":"{}"}}]}`,
    ]) {
      const answer = await post(body);
      expect(answer.status, body).toBeLessThan(500);
      expect(answer.headers['content-type']).toMatch(/application\/json/);
    }
    await expectUnpolluted(server);
  });

  it('in query strings, headers, ids, rules, fault rules and MCP messages', async () => {
    const queries = [
      '__proto__[polluted]=yes',
      '__proto__.polluted=yes',
      'constructor[prototype][polluted]=yes',
      'constructor.prototype.polluted=yes',
      '__proto__=x&__proto__=y',
      'tool=__proto__&session=constructor&status=__proto__',
      'limit=__proto__&cursor=__proto__',
    ];
    for (const route of [
      '/api/v1/traces',
      '/api/v1/sessions',
      '/api/v1/stats',
      '/api/v1/tools',
      '/api/v1/traces/export',
      '/api/v1/approvals',
      '/api/v1/faults',
    ]) {
      for (const query of queries) {
        const answer = await rawRequest(server.port, { method: 'GET', path: `${route}?${query}` });
        expect(answer.status, `${route}?${query}`).toBeLessThan(500);
      }
    }
    for (const id of PROTO_KEYS) {
      for (const url of [
        `/api/v1/traces/${id}`,
        `/api/v1/sessions/${id}`,
        `/api/v1/faults/${id}`,
        `/api/v1/tools/${id}/stats`,
        `/api/v1/traces/${id}/compare/${id}`,
      ]) {
        const answer = await rawRequest(server.port, { method: 'GET', path: url });
        expect(answer.status, url).toBeLessThan(500);
        expect(answer.headers['content-type'], url).toMatch(/application\/json/);
      }
    }
    const headers = {
      __proto__: 'x',
      constructor: 'x',
      'x-session-id': '__proto__',
      traceparent: '__proto__',
      'mcp-session-id': '__proto__',
    };
    const withHeaders = await post(toolCallsBody('{"expression":"1+1"}'), '/api/v1/tool-calls', headers);
    expect(withHeaders.status).toBe(200);
    for (const [method, url, body] of [
      [
        'PUT',
        '/api/v1/policy',
        `{"rules":[{"list":"allow","rule":"__proto__"},{"list":"deny","rule":"constructor"}],"__proto__":${PAYLOAD}}`,
      ],
      ['PUT', '/api/v1/policy', `{"rules":[{"list":"deny","rule":"calculator","__proto__":${PAYLOAD}}]}`],
      ['POST', '/api/v1/policy/preview', `{"rules":[{"list":"deny","rule":"toString"}],"__proto__":${PAYLOAD}}`],
      ['POST', '/api/v1/faults', `{"name":"__proto__","tool":"__proto__","kind":"error","__proto__":${PAYLOAD}}`],
      [
        'POST',
        '/api/v1/faults',
        `{"name":"p","tool":"calculator","kind":"latency","params":{"__proto__":${PAYLOAD}},"enabled":false}`,
      ],
      ['POST', '/api/v1/import', `{"__proto__":${PAYLOAD},"traces":[{"__proto__":${PAYLOAD}}]}`],
      ['POST', '/api/v1/approvals/__proto__', `{"decision":"approve","__proto__":${PAYLOAD}}`],
      [
        'POST',
        '/mcp',
        `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"__proto__":${PAYLOAD},"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"p","version":"1"}}}`,
      ],
    ] as const) {
      const answer = await rawRequest(server.port, {
        method,
        path: url,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body,
      });
      expect(answer.status, `${method} ${url}`).toBeLessThan(500);
    }
    // Whatever rules and fault rules were accepted are undone before the behaviour is checked.
    await server.send('PUT', '/api/v1/policy', { rules: [] });
    await rawRequest(server.port, {
      method: 'POST',
      path: '/api/v1/faults/disable-all',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    await expectUnpolluted(server);
  });

  it('in the config file: the server starts clean or refuses the file, never polluted', async () => {
    // Written by hand: JSON.stringify cannot write a `__proto__` key.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolscope-proto-config-'));
    const file = path.join(dir, 'config.json');
    fs.writeFileSync(
      file,
      `{"__proto__":${PAYLOAD},"policies":{"__proto__":{"calculator":"deny"},"constructor":"allow"},"limits":{"__proto__":{"maxBodyBytes":1}},"shell":{"allow":["echo"],"__proto__":{"allow":["rm"]}}}`,
    );
    try {
      polluted = await startBuiltServer('toolscope-attack-proto-config-', undefined, { TOOLSCOPE_CONFIG: file });
    } catch (error) {
      // Refusing the file is fine, as long as it says why.
      expect(String(error)).toMatch(/config/i);
      return;
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    await expectUnpolluted(polluted);
  }, 90_000);
});

describe('prototype pollution in process: Object.prototype is untouched', () => {
  const toolscopes = testToolscopes('toolscope-proto-');
  const before = Object.getOwnPropertyNames(Object.prototype).sort();

  it('after tool calls, the guard and a config file carrying __proto__ and constructor.prototype', async () => {
    const dir = toolscopes.dataDir();
    fs.writeFileSync(
      path.join(dir, 'toolscope.config.json'),
      `{"__proto__":${PAYLOAD},"policies":{"__proto__":{"calculator":"deny"}}}`,
    );
    let config: ReturnType<typeof loadConfig> | null = null;
    try {
      config = loadConfig({ TOOLSCOPE_DATA_DIR: dir }, dir);
    } catch (error) {
      expect(String(error)).toMatch(/config|policies/i);
    }
    if (config) expect(config.policies.calculator).toBeUndefined();
    const ts = toolscopes.start(toolscopes.dataDir());
    for (const args of argumentAttacks) {
      const body = JSON.parse(toolCallsBody(args)) as unknown;
      const answer = await runToolCalls(ts, body);
      expect(answer.results).toHaveLength(2);
    }
    const headers = new Map<string, string>([
      ['host', '127.0.0.1'],
      ['origin', '__proto__'],
      ['__proto__', 'x'],
    ]);
    guardRequest({ method: 'POST', headers: { get: (name: string) => headers.get(name) ?? null } }, ts.config);
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).calculator).toBeUndefined();
    const ok = await runToolCalls(ts, {
      tool_calls: [{ id: 'c', function: { name: 'calculator', arguments: '{"expression":"6*7"}' } }],
    });
    expect((ok.results as { success: boolean }[])[0]?.success).toBe(true);
  });
});
