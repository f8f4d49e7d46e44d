import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltServer, hasCurrentBuild, startBuiltServer } from '../server/testing/built-server';
import { crowding } from './testing/machine-pace';

/**
 * Output floods against the built server (`npm start`'s script): a `run_shell` program that
 * writes as fast as it can, to stdout or stderr, is stopped at the output cap, and the server
 * answers other requests promptly all along — what it reads of a flood never holds its event
 * loop. Needs a current build (`node scripts/build.mjs`; `npm test` builds first).
 */
const built = await hasCurrentBuild('floods-built.test');

const CONFIG = {
  policies: { run_shell: 'allow' },
  shell: { allow: ['sh', 'yes', 'cat'] },
};

/** What the test reads of a call's result. */
interface CallResult {
  status: string;
  trace_id: string;
  error: { code: string } | null;
}

describe.skipIf(!built)('output floods on the built server', () => {
  let server: BuiltServer;

  beforeAll(async () => {
    server = await startBuiltServer('toolscope-floods-', CONFIG);
  }, 90_000);

  afterAll(() => server?.stop());

  /** Runs `command` through the agent path while probing `GET /api/v1/tools`; the slowest probe's time with the call's result. */
  async function floodWhileProbing(command: string[]) {
    let done = false;
    const flood = server
      .send('POST', '/api/v1/tool-calls', {
        tool_calls: [
          { id: 'flood', type: 'function', function: { name: 'run_shell', arguments: JSON.stringify({ command }) } },
        ],
      })
      .finally(() => {
        done = true;
      });
    let slowestMs = 0;
    let probes = 0;
    while (!done) {
      const started = performance.now();
      const { status } = await server.send('GET', '/api/v1/tools');
      expect(status).toBe(200);
      slowestMs = Math.max(slowestMs, performance.now() - started);
      probes++;
    }
    const { status, json } = await flood;
    expect(status).toBe(200);
    return { result: json.results[0] as CallResult, slowestMs, probes };
  }

  it.each([
    ['stdout', ['yes', 'flood']],
    ['stderr', ['sh', '-c', 'yes flood >&2']],
    ['stdout, binary zeros', ['cat', '/dev/zero']],
  ])('stops a flood on %s at the cap and keeps answering other requests meanwhile', async (stream, command) => {
    const { result, slowestMs, probes } = await floodWhileProbing(command);
    expect(result.status, stream).toBe('failed');
    expect(result.error?.code, stream).toBe('OUTPUT_LIMIT');
    expect(probes, stream).toBeGreaterThan(0);
    // Stretched like every latency bound of the hardening tests (testing/machine-pace.ts).
    expect(slowestMs, stream).toBeLessThan(500 * crowding());
    // The call is stored, bounded: its trace answers, its output cut with the marker. Binary
    // output is one line saying so (as JSON, each NUL byte was 6 characters: a 12.5 MB trace).
    const { status, json } = await server.send('GET', `/api/v1/traces/${result.trace_id}`);
    expect(status).toBe(200);
    const trace = JSON.stringify(json);
    expect(trace).toMatch(/truncated/);
    if (stream.includes('binary')) {
      // What it wrote until the kill landed: the cap at least, more on a slow or busy machine.
      const note = trace.match(/\[binary stdout left out: binary data \(contains NUL bytes\), (\d+(?:\.\d)?) MiB\]/);
      expect(note, trace.slice(0, 2_000)).not.toBeNull();
      expect(Number(note?.[1])).toBeGreaterThanOrEqual(1);
      expect(trace.length).toBeLessThan(64 * 1024);
    } else expect(trace.length).toBeLessThan(16 * 1024 * 1024);
  });
});
