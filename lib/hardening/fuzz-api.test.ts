import http from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltServer, hasCurrentBuild, startBuiltServer } from '../server/testing/built-server';
import { type FuzzCase, fuzzCase } from './testing/fuzz-requests';
import { jsonAnswerProblem, type RawAnswer, rawRequest } from './testing/raw-http';
import { toolCallsAnswerProblem } from './testing/tool-result-contract';

/**
 * fast-check drives FUZZ_RUNS (default 10,000) random and malformed requests at every API route,
 * `/mcp` and the event stream of the built server, 16 at a time, and holds it to: no 5xx, no
 * crash, a JSON answer (the error envelope when not a success), the ToolResult contract for every
 * result of `POST /api/v1/tool-calls`; afterwards a known call and the traces list still work.
 * The seed is printed on failure; run again with FUZZ_SEED=<seed> to get the same requests.
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
