import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltServer, hasCurrentBuild, startBuiltServer } from '../../server/testing/built-server';

/**
 * Replay and recording mode as `npm start` serves them (the HTTP layer's one app on Node's
 * server, in front of Next's pages), over real HTTP. Needs a current build (`node
 * scripts/build.mjs`; `npm test` builds first); skipped without one.
 */
const built = await hasCurrentBuild('replay.built-server.test');

// biome-ignore lint/suspicious/noExplicitAny: the tests read JSON answers whose shape they assert on
type Json = any;

const calc = (id: string, expression: string) => ({
  id,
  type: 'function',
  function: { name: 'calculator', arguments: JSON.stringify({ expression }) },
});

describe.skipIf(!built)('the built server: replay and recording mode', () => {
  let server: BuiltServer;

  beforeAll(async () => {
    server = await startBuiltServer('toolscope-replay-built-');
  }, 90_000);

  afterAll(() => server?.stop());

  const send = (method: string, requestPath: string, body?: unknown) => server.send(method, requestPath, body);

  it('replays a call and a session, compares them, and serves a session from its recording', async () => {
    const first = await send('POST', '/api/v1/tool-calls', {
      session_id: 'built-rec',
      tool_calls: [calc('a', '6 * 7'), calc('b', '1 + 1')],
    });
    expect(first.json.results.map((r: Json) => r.output.result)).toEqual([42, 2]);
    const [a, b] = first.json.results.map((r: Json) => r.trace_id);

    const replayed = await send('POST', `/api/v1/traces/${a}/replay`);
    expect(replayed).toMatchObject({
      status: 200,
      json: { tool: 'calculator', status: 'succeeded', output: { result: 42 } },
    });
    const edited = await send('POST', `/api/v1/traces/${a}/replay`, { arguments: '{"expression":"2 * 21"}' });
    expect(edited.json.output).toMatchObject({ expression: '2 * 21', result: 42 });
    const copy = await send('GET', `/api/v1/traces/${edited.json.trace_id}`);
    // Each replay in a session of its own: the recorded session keeps its two calls.
    expect(copy.json).toMatchObject({
      actor: 'replay',
      replay_of: a,
      session_id: 'built-rec~replay-2',
      session_seq: 1,
    });
    expect((await send('GET', `/api/v1/traces/${a}`)).json.replays).toEqual([
      replayed.json.trace_id,
      edited.json.trace_id,
    ]);
    const comparison = await send('GET', `/api/v1/traces/${a}/compare/${edited.json.trace_id}`);
    expect(comparison.json.changes).toMatchObject({ arguments: true, output: true, outcome: false });
    expect((await send('POST', '/api/v1/traces/missing/replay')).status).toBe(404);
    const badFault = await send('POST', `/api/v1/traces/${a}/replay`, { fault: { kind: 'fail_first' } });
    expect(badFault.status).toBe(400);
    expect(badFault.json.error.details.errors[0].path).toBe('fault.params.n');

    const session = await send('POST', '/api/v1/sessions/built-rec/replay', {});
    expect(session.status).toBe(200);
    expect(session.json.results).toHaveLength(2);
    const pairs = await send('GET', `/api/v1/sessions/built-rec/compare/${session.json.session_id}`);
    expect(pairs.json.pairs).toHaveLength(2);
    expect(pairs.json.pairs.every((p: Json) => !p.outcome_changed && !p.output_changed)).toBe(true);

    // Recording mode: a hit is served, a miss fails, an unknown recording is a 400.
    const played = await send('POST', '/api/v1/tool-calls', {
      session_id: 'built-play',
      replay_from: 'built-rec',
      tool_calls: [calc('x', '1 + 1'), calc('y', '3 + 3')],
    });
    const [hit, miss] = played.json.results;
    expect(hit).toMatchObject({ status: 'succeeded', output: { result: 2 } });
    expect((await send('GET', `/api/v1/traces/${hit.trace_id}`)).json.served_from).toBe(b);
    expect(miss).toMatchObject({ status: 'failed', error: { code: 'RECORDING_MISS' } });
    const listed = await send('GET', '/api/v1/traces?session=built-play');
    expect(listed.json.items.map((item: Json) => item.served_from)).toEqual([null, b]);
    const unknown = await send('POST', '/api/v1/tool-calls', { replay_from: 'nothing', tool_calls: [calc('z', '1')] });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.message).toMatch(/^replay_from: /);
  });
});
