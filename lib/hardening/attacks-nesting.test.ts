import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseArguments } from '../executor/parse-arguments';
import { type BuiltServer, hasCurrentBuild, startBuiltServer } from '../server/testing/built-server';
import { nestedJson } from './testing/fuzz-requests';
import { jsonAnswerProblem, rawRequest } from './testing/raw-http';

/**
 * Deep nesting, 100,000 levels, everywhere a body takes JSON: a structured error or a trace,
 * never a crash, a 5xx or a lost record. Within the body limit (1 MiB): 100,000 levels of
 * `{"a":` are 600 KB.
 */
const built = await hasCurrentBuild('attacks-nesting.test');
const DEPTH = 100_000;

describe('parseArguments refuses arguments nested past its depth, without recursion', () => {
  it('as an object and as JSON text, arrays and objects, 100,000 levels', () => {
    for (const kind of ['array', 'object', 'mixed'] as const) {
      const text = nestedJson(DEPTH, kind);
      for (const args of [text, JSON.parse(text) as unknown]) {
        const parsed = parseArguments(args);
        expect(parsed.ok).toBe(false);
        if (!parsed.ok) expect(parsed.error).toMatchObject({ code: 'INVALID_ARGUMENTS', stage: 'parse' });
      }
    }
  });

  it('takes arguments nested as deep as the depth allows (the redaction suite nests 100 levels)', () => {
    const parsed = parseArguments(nestedJson(200, 'object'));
    expect(parsed.ok).toBe(true);
  });
});

describe.skipIf(!built)('deep nesting (built server)', () => {
  let server: BuiltServer;

  beforeAll(async () => {
    server = await startBuiltServer('toolscope-attack-nesting-', { approvals: { waitMs: 0 } });
  }, 90_000);

  afterAll(() => server?.stop());

  const post = (path: string, body: string, method = 'POST') =>
    rawRequest(server.port, {
      method,
      path,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body,
    });

  async function expectTraced(results: { trace_id: string; success: boolean; error: { code: string } | null }[]) {
    for (const result of results) {
      expect(result.success).toBe(false);
      expect(result.error?.code).toBe('INVALID_ARGUMENTS');
      const trace = await server.send('GET', `/api/v1/traces/${result.trace_id}`);
      expect(trace.status).toBe(200);
      expect(trace.json.status).toBe('failed');
    }
  }

  for (const kind of ['array', 'object', 'mixed'] as const) {
    it(`leaves a trace for tool arguments nested ${DEPTH} levels (${kind}s), as an object and as JSON text`, async () => {
      const nested = nestedJson(DEPTH, kind);
      // Arguments are an object (or its JSON text): a nested array goes under a key.
      const wrapped = nested.startsWith('[') ? `{"a":${nested}}` : nested;
      // One request each: the text form escapes every quote, and both would pass the body limit.
      for (const args of [wrapped, JSON.stringify(wrapped)]) {
        const answer = await post(
          '/api/v1/tool-calls',
          `{"tool_calls":[{"id":"deep","type":"function","function":{"name":"calculator","arguments":${args}}}]}`,
        );
        expect(answer.status).toBe(200);
        await expectTraced(JSON.parse(answer.text).results);
      }
    });
  }

  it(`leaves a trace for Anthropic tool_use input nested ${DEPTH} levels`, async () => {
    const answer = await post(
      '/api/v1/tool-calls',
      `{"tool_use":[{"type":"tool_use","id":"toolu_deep","name":"calculator","input":{"a":${nestedJson(DEPTH, 'mixed')}}}]}`,
    );
    expect(answer.status).toBe(200);
    await expectTraced(JSON.parse(answer.text).results);
  });

  it(`answers a request envelope nested ${DEPTH} levels with a JSON 400`, async () => {
    for (const body of [
      nestedJson(DEPTH, 'array'),
      nestedJson(DEPTH, 'object'),
      `{"tool_calls":${nestedJson(DEPTH, 'array')}}`,
      `{"tool_calls":[{"id":"x","function":${nestedJson(DEPTH, 'object')}}]}`,
      `{"session_id":${nestedJson(DEPTH, 'object')},"tool_calls":[]}`,
    ]) {
      const answer = await post('/api/v1/tool-calls', body);
      expect(answer.status).toBe(400);
      expect(jsonAnswerProblem(answer)).toBeNull();
    }
  });

  it(`records the assistant message nested ${DEPTH} levels, or refuses it, without losing the calls`, async () => {
    const answer = await post(
      '/api/v1/tool-calls',
      `{"assistant_message":${nestedJson(DEPTH, 'object')},"tool_calls":[{"id":"msg","type":"function","function":{"name":"calculator","arguments":"{\\"expression\\":\\"1+1\\"}"}}]}`,
    );
    expect(answer.status).toBeLessThan(500);
    expect(jsonAnswerProblem(answer)).toBeNull();
  });

  it(`answers bodies nested ${DEPTH} levels on every route Next serves with JSON, never a 5xx`, async () => {
    const nested = nestedJson(DEPTH, 'mixed');
    for (const [method, url, body] of [
      ['PUT', '/api/v1/policy', `{"rules":${nested}}`],
      ['POST', '/api/v1/policy/preview', `{"rules":[${nested}]}`],
      ['POST', '/api/v1/faults', `{"name":"deep","tool":"calculator","kind":"error","params":${nested}}`],
      ['POST', '/api/v1/import', `{"format":"toolscope","traces":[${nested}]}`],
      ['POST', '/api/v1/import', nested],
      ['POST', '/api/v1/approvals/some-id', `{"decision":"approve","arguments":${nested}}`],
      ['POST', '/api/v1/traces/some-id/replay', `{"arguments":${nested}}`],
      ['POST', '/api/v1/traces/some-id/cancel', nested],
      ['POST', '/api/v1/sessions/some-id/replay', nested],
    ] as const) {
      const answer = await post(url, body, method);
      expect(answer.status, `${method} ${url}`).toBeLessThan(500);
      expect(jsonAnswerProblem(answer), `${method} ${url}`).toBeNull();
    }
  });

  it(`answers MCP tools/call with arguments nested ${DEPTH} levels with a result, and traces it`, async () => {
    const init = await post(
      '/mcp',
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"deep","version":"1"}}}',
    );
    expect(init.status).toBe(200);
    const session = String(init.headers['mcp-session-id']);
    const call = await rawRequest(server.port, {
      method: 'POST',
      path: '/mcp',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-06-18',
      },
      body: `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"calculator","arguments":{"a":${nestedJson(DEPTH, 'object')}}}}`,
    });
    expect(call.status).toBeLessThan(500);
    // A result (isError) or a JSON-RPC error: either way an answer, and the server goes on.
    expect(call.text).toMatch(/"jsonrpc":"2.0"/);
    const list = await server.send('GET', '/api/v1/traces?limit=50');
    expect(list.status).toBe(200);
  });

  it('still answers a known call afterwards', async () => {
    const known = await server.send('POST', '/api/v1/tool-calls', {
      tool_calls: [
        { id: 'after', type: 'function', function: { name: 'calculator', arguments: '{"expression":"6*7"}' } },
      ],
    });
    expect(known.json.results[0].output.result).toBe(42);
    expect(server.child.exitCode).toBeNull();
  });
});
