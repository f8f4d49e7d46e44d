import http from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INDEX_IDLE_MS } from '../db/search-indexer';
import { appOf, callApp, sendJson } from '../http/testing/call-app';
import { type BuiltServer, hasCurrentBuild, startBuiltServer } from '../server/testing/built-server';
import { testToolscopes } from '../server/testing/test-toolscopes';
import { type FuzzCase, fuzzCase, SEARCH_TEXTS, searchQueryValue, searchText } from './testing/fuzz-requests';
import { jsonAnswerProblem, type RawAnswer, rawRequest } from './testing/raw-http';
import { toolCallsAnswerProblem } from './testing/tool-result-contract';

/**
 * fast-check drives FUZZ_RUNS (default 10,000) random and malformed requests at every API route,
 * `/mcp` and the event stream of the built server, 16 at a time, and holds it to: no 5xx, no
 * crash, a JSON answer (the error envelope when not a success), the ToolResult contract for every
 * result of `POST /api/v1/tool-calls`; afterwards a known call and the traces list still work.
 * The seed is printed on failure; run again with FUZZ_SEED=<seed> to get the same requests.
 *
 * Without a build, the search texts (`SEARCH_TEXTS`: NUL, lone surrogates, quotes, FTS5's
 * operators, 10 kB…) go to every route that takes one, in process (the HTTP layer's app on a real
 * Toolscope), FUZZ_SEARCH_RUNS times (default 600): each a 200 or a 400, never a 500.
 */
const built = await hasCurrentBuild('fuzz-api.test');
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
const CONCURRENCY = 16;

/** Successes that are not JSON, by design: streams and the NDJSON export. */
const STREAMING_TYPES = ['text/event-stream', 'application/x-ndjson'];

function callsIn(body: string | Buffer | undefined): number | null {
  try {
    const parsed = JSON.parse(String(body)) as { tool_calls?: unknown; tool_use?: unknown };
    const calls = parsed.tool_use ?? parsed.tool_calls;
    return Array.isArray(calls) ? calls.length : null;
  } catch {
    return null;
  }
}

/** What is wrong with one answer, or null. */
function problemOf(c: FuzzCase, answer: RawAnswer): string | null {
  if (answer.status >= 500) return `status ${answer.status}: ${answer.text.slice(0, 300)}`;
  if (c.request.method === 'HEAD' || answer.status === 204) return null;
  const type = String(answer.headers['content-type'] ?? '');
  if (answer.status < 300 && STREAMING_TYPES.some((t) => type.startsWith(t))) return null;
  const problem = jsonAnswerProblem(answer, { rpc: c.target === '/mcp' });
  if (problem) return problem;
  if (c.target === '/api/v1/tool-calls' && answer.status === 200 && c.request.path.startsWith('/api/v1/tool-calls')) {
    return toolCallsAnswerProblem(JSON.parse(answer.text), callsIn(c.request.body));
  }
  return null;
}

function describeCase(c: FuzzCase): string {
  const body = c.request.body === undefined ? '(none)' : String(c.request.body);
  return `${c.request.method} ${c.request.path.slice(0, 300)} [${JSON.stringify(c.request.headers)}] body: ${body.slice(0, 300)}${body.length > 300 ? `… (${body.length} chars)` : ''}`;
}

describe.skipIf(!built)('fuzzing every API route of the built server', () => {
  let server: BuiltServer;
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

  beforeAll(async () => {
    server = await startBuiltServer('toolscope-fuzz-', {
      // Nothing fuzzed may write, run programs or reach the network, nor wait for a person.
      policies: { write_file: 'deny', run_shell: 'deny', http_request: 'deny' },
      approvals: { waitMs: 0 },
    });
  }, 90_000);

  afterAll(() => {
    agent.destroy();
    server?.stop();
  });

  it(`answers ${RUNS} random and malformed requests with JSON, never a 5xx, and keeps working`, async () => {
    const cases = fc.sample(fuzzCase, { seed: SEED, numRuns: RUNS });
    const failures: string[] = [];
    const slow: [number, number][] = [];
    let next = 0;
    const worker = async () => {
      while (next < cases.length && failures.length < 10) {
        const index = next++;
        const c = cases[index] as FuzzCase;
        const started = performance.now();
        try {
          const answer = await rawRequest(server.port, c.request, agent);
          if (process.env.FUZZ_SLOW) slow.push([performance.now() - started, index]);
          const problem = problemOf(c, answer);
          if (problem) failures.push(`#${index} ${problem}\n    ${describeCase(c)}`);
        } catch (error) {
          // The server closing a connection after refusing a body it did not read is fine; one that
          // does not answer at all is not.
          const code = (error as NodeJS.ErrnoException).code;
          // A request line and headers over 16 KiB are refused before Node's parser has told
          // anyone the method: the JSON 431 has a body even for a HEAD, which Node's client then
          // reports as data after the answer. The answer itself was sent.
          const headBytes = Object.entries(c.request.headers ?? {}).reduce(
            (sum, [name, value]) => sum + name.length + String(value).length + 4,
            c.request.path.length,
          );
          const headOverflow = c.request.method === 'HEAD' && headBytes > 15_000;
          if (code !== 'ECONNRESET' && code !== 'EPIPE' && !headOverflow) {
            failures.push(`#${index} no answer: ${(error as Error).message}\n    ${describeCase(c)}`);
          }
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    if (process.env.FUZZ_SLOW) {
      for (const [ms, i] of slow.sort((a, b) => b[0] - a[0]).slice(0, 15)) {
        console.log(`${Math.round(ms)} ms #${i} ${describeCase(cases[i] as FuzzCase).slice(0, 200)}`);
      }
    }
    expect(server.child.exitCode, `the server exited (seed ${SEED}):\n${server.log().slice(-2000)}`).toBeNull();
    expect(failures, `fuzz seed ${SEED} (FUZZ_SEED=${SEED} to repeat):\n${failures.join('\n')}`).toEqual([]);

    // Afterwards, with whatever fault rules and permission rules the fuzz may have made undone,
    // a known call succeeds and the traces list answers.
    await rawRequest(server.port, {
      method: 'POST',
      path: '/api/v1/faults/disable-all',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    await server.send('PUT', '/api/v1/policy', { rules: [] });
    const known = await server.send('POST', '/api/v1/tool-calls', {
      tool_calls: [
        { id: 'call_after', type: 'function', function: { name: 'calculator', arguments: '{"expression":"6*7"}' } },
      ],
    });
    expect(known.status, `seed ${SEED}`).toBe(200);
    expect(known.json.results[0]).toMatchObject({ success: true, output: { result: 42 } });
    const list = await server.send('GET', '/api/v1/traces?limit=5');
    expect(list.status, `seed ${SEED}`).toBe(200);
    expect(list.json.items.length).toBeGreaterThan(0);
    const trace = await server.send('GET', `/api/v1/traces/${known.json.results[0].trace_id}`);
    expect(trace.json).toMatchObject({ status: 'succeeded', tool_call_id: 'call_after' });
  }, 180_000);
});

const SEARCH_RUNS = Number(process.env.FUZZ_SEARCH_RUNS ?? 600);
/** The routes that take a search text (`q`). */
const SEARCH_ROUTES = ['/api/v1/traces', '/api/v1/traces/export', '/api/v1/sessions'];
/** Filters a search goes with: each another shape of the SQL around the text test. */
const otherFilters = fc.constantFrom(
  '',
  '&tool=calculator',
  '&status=succeeded',
  '&session=fuzz%22one',
  '&limit=1',
  '&faulted=false',
  '&from=0&to=99999999999999',
);

/** `text` with each lone surrogate made U+FFFD (`encodeURIComponent` throws on one). */
const wellFormed = (text: string) => (text as unknown as { toWellFormed(): string }).toWellFormed();

describe('fuzzing every search text on every route that takes one (in process)', () => {
  const toolscopes = testToolscopes('toolscope-fuzz-search-');

  /** A Toolscope whose calls hold the search texts, some in the search index and some above its mark. */
  async function withCalls() {
    const ts = toolscopes.start(toolscopes.dataDir());
    const calls = (texts: readonly string[], offset: number) =>
      texts.map((text, i) => ({
        id: `call_${offset + i}`,
        type: 'function',
        function: { name: 'calculator', arguments: JSON.stringify({ expression: '1+1', note: text }) },
      }));
    const first = await sendJson(ts, 'POST', '/api/v1/tool-calls', {
      session_id: 'fuzz"one',
      tool_calls: calls(SEARCH_TEXTS.slice(0, 20), 0),
    });
    expect(first.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, INDEX_IDLE_MS * 4));
    const second = await sendJson(ts, 'POST', '/api/v1/tool-calls', {
      session_id: 'NEAR(two)',
      tool_calls: calls(SEARCH_TEXTS.slice(20, 40), 20),
    });
    expect(second.status).toBe(200);
    return ts;
  }

  /** What is wrong with the answer to a search, or null: a 200 (read to its end), or a 400 INVALID_QUERY. */
  async function searchProblem(response: Response): Promise<string | null> {
    const text = await response.text();
    if (response.status === 200) return null;
    if (response.status !== 400) return `status ${response.status}: ${text.slice(0, 300)}`;
    const error = (JSON.parse(text) as { error?: { code?: string; message?: string } }).error;
    return error?.code === 'INVALID_QUERY' && /\bq\b/.test(error.message ?? '') ? null : `400 not naming q: ${text}`;
  }

  it('answers q=a%00b with a 400 naming q, not a 500 (SqliteError: unterminated string)', async () => {
    const app = appOf(await withCalls());
    for (const path of ['/api/v1/traces?q=a%00b', '/api/v1/traces/export?q=a%00b', '/api/v1/sessions?q=a%00b']) {
      const response = await callApp(app, 'GET', path);
      expect(response.status, path).toBe(400);
      const { error } = await response.json();
      expect(error.code).toBe('INVALID_QUERY');
      expect(error.message).toMatch(/^q: a search text may not hold NUL/);
    }
    const long = await callApp(app, 'GET', `/api/v1/traces?q=${'x'.repeat(10_000)}`);
    expect(long.status).toBe(400);
    expect((await long.json()).error.message).toMatch(/^q: .*256/);
  });

  it(`answers ${SEARCH_RUNS} search texts with a 200 or a 400, never a 500`, async () => {
    const ts = await withCalls();
    const app = appOf(ts);
    const failures: string[] = [];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...SEARCH_ROUTES), searchQueryValue, otherFilters, async (route, q, more) => {
        const path = `${route}?q=${q}${more}`;
        const problem = await searchProblem(await callApp(app, 'GET', path));
        if (problem) failures.push(`GET ${path.slice(0, 200)}: ${problem}`);
        expect(problem, path.slice(0, 200)).toBeNull();
      }),
      { seed: SEED, numRuns: SEARCH_RUNS },
    );
    expect(failures).toEqual([]);
    // Texts that are searchable (stored in JSON, a quote or a backslash is stored escaped) find the calls that hold them.
    for (const text of ['NEAR(abc def)', 'arguments:x', '(((', 'a OR b', 'abc*', "'abc'", '^abc']) {
      const found = await sendJson(ts, 'GET', `/api/v1/traces?q=${encodeURIComponent(text)}`);
      expect(found.status).toBe(200);
      expect(found.json.items.length, text).toBeGreaterThan(0);
    }
  }, 180_000);

  it('imports files whose texts hold NUL, lone surrogates (JSON \\ud800) and FTS5 operators with a 201 or a 400, and searches them', async () => {
    const ts = await withCalls();
    const file = (await sendJson(ts, 'GET', '/api/v1/sessions/fuzz%22one/export')).json;
    const [base] = file.traces;
    let n = 0;
    await fc.assert(
      fc.asyncProperty(searchText, searchText, async (text, other) => {
        n++;
        const trace = {
          ...base,
          id: `${base.id.slice(0, 24)}${n.toString(16).padStart(12, '0')}`,
          tool_call_id: text.slice(0, 256),
          session_id: other.slice(0, 256) || 'empty',
          stdout: text,
          stderr: other,
          arguments: { [text.slice(0, 64)]: other },
          result: { ...base.result, output: { text, other } },
        };
        // JSON.stringify writes a lone surrogate as its escape: the body holds `\ud800` as JSON does.
        const body = JSON.stringify({ ...file, kind: 'trace', session_id: trace.session_id, traces: [trace] });
        const imported = await callApp(appOf(ts), 'POST', '/api/v1/import', { body });
        expect([201, 400], await imported.clone().text()).toContain(imported.status);
        const q = encodeURIComponent(wellFormed(text).slice(0, 200));
        const searched = await callApp(appOf(ts), 'GET', `/api/v1/traces?q=${q}`);
        expect(await searchProblem(searched)).toBeNull();
      }),
      { seed: SEED, numRuns: Math.ceil(SEARCH_RUNS / 10) },
    );
  }, 180_000);
});
