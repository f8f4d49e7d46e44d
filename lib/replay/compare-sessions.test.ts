import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../executor/define-tool';
import { appOf, callApp, type Json } from '../http/testing/call-app';
import type { Toolscope } from '../server/create-toolscope';
import { testToolscopes } from '../server/testing/test-toolscopes';
import { compareSessions } from './compare-sessions';

/**
 * Session comparison through the HTTP app, against a real SQLite file and the real executor:
 * pairs by identity (replay, tool call id, tool and arguments), never by position alone; calls
 * left alone; unrelated sessions; volatile paths ignored (defaults and the config's); pending pairs.
 */
const toolscopes = testToolscopes('toolscope-compare-sessions-');

/** What `gated` waits for: `closeGate()` makes a new one, `gate.open()` lets every waiting call through. */
const gate = { promise: Promise.resolve(), open: () => {} };
function closeGate() {
  gate.promise = new Promise<void>((resolve) => {
    gate.open = resolve;
  });
}

function testTools() {
  let runs = 0;
  return [
    defineTool({
      name: 'echo',
      description: 'Answers its input',
      sideEffect: 'none',
      inputSchema: z.object({ text: z.string() }),
      execute: ({ text }) => ({ text }),
    }),
    defineTool({
      name: 'tick',
      description: 'Counts its calls: a different answer each time',
      sideEffect: 'none',
      inputSchema: z.object({}),
      execute: () => ({ tick: ++runs }),
    }),
    defineTool({
      name: 'stamped',
      description: 'Answers its input with the volatile parts of a real response: a clock, request ids',
      sideEffect: 'none',
      inputSchema: z.object({ text: z.string() }),
      execute: ({ text }) => {
        runs += 1;
        const at = Date.UTC(2026, 0, 1, 0, 0, runs);
        return {
          text,
          served_at: new Date(at).toISOString(),
          epoch_ms: at,
          headers: { date: new Date(at).toUTCString(), 'x-request-id': `req-${runs}` },
          meta: { request_id: `r${runs}`, date: `not a date ${runs}` },
        };
      },
    }),
    defineTool({
      name: 'gated',
      description: 'Answers once the test opens its gate',
      sideEffect: 'none',
      inputSchema: z.object({}),
      execute: async () => {
        await gate.promise;
        return { passed: true };
      },
    }),
  ];
}

function start(config?: object): Toolscope {
  return toolscopes.start(toolscopes.dataDir(config), { tools: testTools() });
}

const call = (id: string, name: string, args: object) => ({
  id,
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
});

async function post(ts: Toolscope, sessionId: string, calls: object[]): Promise<string[]> {
  const response = await callApp(appOf(ts), 'POST', '/api/v1/tool-calls', {
    body: { session_id: sessionId, tool_calls: calls },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as Json).results.map((result: Json) => result.trace_id);
}

async function getJson(ts: Toolscope, path: string): Promise<Json> {
  const response = await callApp(appOf(ts), 'GET', path);
  expect(response.status, path).toBe(200);
  return response.json();
}

async function replay(ts: Toolscope, id: string, body: object = {}): Promise<string> {
  const response = await callApp(appOf(ts), 'POST', `/api/v1/traces/${id}/replay`, { body });
  expect(response.status).toBe(200);
  return ((await response.json()) as Json).trace_id;
}

/** The pairs as [A's tool call id, B's tool call id, matched_by, verdict]. */
const rows = (comparison: Json) =>
  comparison.pairs.map((p: Json) => [
    p.original?.tool_call_id ?? null,
    p.replay?.tool_call_id ?? null,
    p.matched_by,
    p.verdict,
  ]);

describe('GET /api/v1/sessions/:id/compare/:other: pairing', () => {
  it('pairs a session with its replay by replay_of, whatever order the replay ran in', async () => {
    const ts = start();
    const [first, second] = await post(ts, 'run', [call('a', 'echo', { text: 'x' }), call('b', 'tick', {})]);
    // Replayed one by one, the second first: each into a session of its own.
    const secondReplay = await replay(ts, second!);
    const firstReplay = await replay(ts, first!);
    const into = ts.store.get(firstReplay)!.sessionId!;
    expect(ts.store.get(secondReplay)!.sessionId).not.toBe(into);
    const comparison = await getJson(ts, `/api/v1/sessions/run/compare/${encodeURIComponent(into)}`);
    expect(comparison.shared).toBe(1);
    expect(comparison.pairs.map((p: Json) => [p.original?.id ?? null, p.replay?.id ?? null, p.matched_by])).toEqual([
      [first, firstReplay, 'replay_of'],
      [second, null, null],
    ]);
    expect(comparison.pairs[0]).toMatchObject({ verdict: 'same', outcome_changed: false, output_changed: false });
    expect(comparison.pairs[1]).toMatchObject({ verdict: 'only_in_a', compare_url: null });

    // A session replay; compared either way round, and two replays of one call pair too.
    const response = await callApp(appOf(ts), 'POST', '/api/v1/sessions/run/replay');
    const whole: Json = await response.json();
    const swapped = await getJson(ts, `/api/v1/sessions/${whole.session_id}/compare/run`);
    expect(swapped.pairs.map((p: Json) => [p.replay?.id, p.matched_by])).toEqual([
      [first, 'replay_of'],
      [second, 'replay_of'],
    ]);
    expect(swapped.pairs.map((p: Json) => p.verdict)).toEqual(['same', 'changed']);
    const siblings = await getJson(ts, `/api/v1/sessions/${encodeURIComponent(into)}/compare/${whole.session_id}`);
    expect(rows(siblings)[0].slice(2)).toEqual(['same_original', 'same']);
  });

  it('pairs by tool call id, then by tool and arguments in order, never by position alone', async () => {
    const ts = start();
    await post(ts, 'one', [
      call('c1', 'echo', { text: 'a' }),
      call('c2', 'echo', { text: 'same' }),
      call('c3', 'echo', { text: 'same' }),
      call('c4', 'echo', { text: 'only here' }),
    ]);
    // Another run: c1 kept its id but not its text; the two "same" calls came with new ids, and
    // the first of them moved ahead; "only there" has no counterpart.
    await post(ts, 'two', [
      call('d2', 'echo', { text: 'same' }),
      call('c1', 'echo', { text: 'b' }),
      call('d9', 'echo', { text: 'only there' }),
      call('d3', 'echo', { text: 'same' }),
    ]);
    const comparison = await getJson(ts, '/api/v1/sessions/one/compare/two');
    // d9 follows c1 in B: it comes right after c1's pair.
    expect(rows(comparison)).toEqual([
      ['c1', 'c1', 'tool_call_id', 'changed'],
      [null, 'd9', null, 'only_in_b'],
      ['c2', 'd2', 'arguments', 'same'],
      ['c3', 'd3', 'arguments', 'same'],
      ['c4', null, null, 'only_in_a'],
    ]);
    expect(comparison.shared).toBe(3);
    expect(comparison.pairs[0].compare_url).toBe(
      `/traces/${comparison.pairs[0].original.id}/compare/${comparison.pairs[0].replay.id}`,
    );
  });

  it('never pairs one tool call id across two tools', async () => {
    const ts = start();
    await post(ts, 'p', [call('same-id', 'echo', { text: 'a' })]);
    await post(ts, 'q', [call('same-id', 'tick', {})]);
    const comparison = await getJson(ts, '/api/v1/sessions/p/compare/q');
    expect(rows(comparison)).toEqual([
      ['same-id', null, null, 'only_in_a'],
      [null, 'same-id', null, 'only_in_b'],
    ]);
    expect(comparison.shared).toBe(0);
  });

  it('says unrelated sessions share nothing: every call alone, A first, none "outcome changed" by position', async () => {
    const ts = start();
    await post(ts, 'left', [call('l1', 'echo', { text: 'a' }), call('l2', 'tick', {})]);
    await post(ts, 'right', [call('r1', 'echo', { text: 'b' }), call('r2', 'echo', { text: 'c' })]);
    const comparison = await getJson(ts, '/api/v1/sessions/left/compare/right');
    expect(comparison.shared).toBe(0);
    expect(rows(comparison)).toEqual([
      ['l1', null, null, 'only_in_a'],
      ['l2', null, null, 'only_in_a'],
      [null, 'r1', null, 'only_in_b'],
      [null, 'r2', null, 'only_in_b'],
    ]);
    // Only in B, between pairs: after the pair whose B call comes before it.
    await post(ts, 'left2', [call('x1', 'echo', { text: 'a' }), call('x2', 'echo', { text: 'c' })]);
    await post(ts, 'right2', [
      call('y0', 'tick', {}),
      call('y1', 'echo', { text: 'a' }),
      call('y2', 'tick', {}),
      call('y3', 'echo', { text: 'c' }),
    ]);
    expect(rows(await getJson(ts, '/api/v1/sessions/left2/compare/right2'))).toEqual([
      [null, 'y0', null, 'only_in_b'],
      ['x1', 'y1', 'arguments', 'same'],
      [null, 'y2', null, 'only_in_b'],
      ['x2', 'y3', 'arguments', 'same'],
    ]);
  });

  it('is 404 when either session has no calls', async () => {
    const ts = start();
    await post(ts, 'one', [call('c1', 'echo', { text: 'a' })]);
    const response = await callApp(appOf(ts), 'GET', '/api/v1/sessions/one/compare/nobody');
    expect(response.status).toBe(404);
    expect(((await response.json()) as Json).error.code).toBe('NOT_FOUND');
    expect(compareSessions(ts.store, 'nobody', 'one')).toBeNull();
  });
});

describe('GET /api/v1/sessions/:id/compare/:other: volatile paths and pending calls', () => {
  it('leaves volatile headers and timestamps out of "output changed", and lists them', async () => {
    const ts = start();
    const [id] = await post(ts, 'stamps', [call('s1', 'stamped', { text: 'hi' })]);
    const replayed = await replay(ts, id!);
    const comparison = await getJson(ts, `/api/v1/sessions/stamps/compare/${ts.store.get(replayed)!.sessionId}`);
    const [pair] = comparison.pairs;
    // meta.request_id is no default, and `meta.date` holds no date: both count.
    expect(pair).toMatchObject({ verdict: 'changed', output_changed: true, outcome_changed: false });
    // epoch_ms is no time key either.
    expect(pair.ignored.map((change: Json) => [change.path, change.rule])).toEqual([
      ['headers.date', '**.headers.date'],
      ['headers["x-request-id"]', '**.headers.x-request-id'],
      ['served_at', '**.*_at'],
    ]);
    expect(pair.ignored_count).toBe(3);
    expect(comparison.ignore_paths).toContainEqual({ path: '**.*_at', timestamps_only: true, source: 'default' });
  });

  it('takes more paths from the config (compare.ignore_paths), globs included', async () => {
    const ts = start({ compare: { ignore_paths: ['meta.*', '**.epoch_ms'] } });
    const [id] = await post(ts, 'stamps', [call('s1', 'stamped', { text: 'hi' })]);
    const replayed = await replay(ts, id!);
    const comparison = await getJson(ts, `/api/v1/sessions/stamps/compare/${ts.store.get(replayed)!.sessionId}`);
    const [pair] = comparison.pairs;
    expect(pair).toMatchObject({ verdict: 'same', output_changed: false, ignored_count: 6 });
    expect(pair.ignored.map((change: Json) => change.path)).toEqual([
      'epoch_ms',
      'headers.date',
      'headers["x-request-id"]',
      'meta.date',
      'meta.request_id',
      'served_at',
    ]);
    expect(comparison.ignore_paths.filter((rule: Json) => rule.source === 'config')).toEqual([
      { path: 'meta.*', timestamps_only: false, source: 'config' },
      { path: '**.epoch_ms', timestamps_only: false, source: 'config' },
    ]);
    // The trace comparison applies the same rules.
    const calls = await getJson(ts, `/api/v1/traces/${id}/compare/${replayed}`);
    expect(calls.changes).toMatchObject({ pending: false, output: false, outcome: false });
    expect(calls.changes.ignored).toHaveLength(6);
  });

  it('says "pending" while a call of the pair runs, and gives the verdict once it has ended', async () => {
    const ts = start();
    const [id] = await post(ts, 'slow', [call('g1', 'gated', {})]);
    closeGate();
    const response = await callApp(appOf(ts), 'POST', `/api/v1/traces/${id}/replay`, { body: { background: true } });
    const replayId = ((await response.json()) as Json).trace_id;
    const into = encodeURIComponent((await getJson(ts, `/api/v1/traces/${replayId}`)).session_id);
    const running = await getJson(ts, `/api/v1/sessions/slow/compare/${into}`);
    expect(running.pairs[0]).toMatchObject({
      verdict: 'pending',
      matched_by: 'replay_of',
      outcome_changed: false,
      output_changed: false,
    });
    expect(running.pairs[0].replay.status).toBe('running');
    expect((await getJson(ts, `/api/v1/traces/${id}/compare/${replayId}`)).changes).toMatchObject({
      pending: true,
      outcome: false,
      output: false,
    });
    gate.open();
    await expect.poll(() => ts.store.get(replayId)?.status).toBe('succeeded');
    const ended = await getJson(ts, `/api/v1/sessions/slow/compare/${into}`);
    expect(ended.pairs[0]).toMatchObject({ verdict: 'same', outcome_changed: false, output_changed: false });
  });
});

describe('GET /api/v1/sessions/:id/compare/:other: a session replay in progress', () => {
  it('says "pending" for the calls not replayed yet, not "only in A"', async () => {
    const ts = start();
    await post(ts, 'seq', [call('g1', 'gated', {})]);
    await post(ts, 'seq', [call('e1', 'echo', { text: 'after' })]);
    closeGate();
    // The session replay runs batch by batch: the second waits for the first, held at the gate.
    const replaying = callApp(appOf(ts), 'POST', '/api/v1/sessions/seq/replay');
    let into = '';
    await expect
      .poll(async () => {
        into = (await getJson(ts, '/api/v1/sessions/seq/replays')).sessions[0]?.id ?? '';
        return into;
      })
      .not.toBe('');
    const during = await getJson(ts, `/api/v1/sessions/seq/compare/${into}`);
    expect(rows(during)).toEqual([
      ['g1', expect.any(String), 'replay_of', 'pending'],
      ['e1', null, null, 'pending'],
    ]);
    gate.open();
    expect((await replaying).status).toBe(200);
    const after = await getJson(ts, `/api/v1/sessions/seq/compare/${into}`);
    expect(after.pairs.map((p: Json) => [p.matched_by, p.verdict])).toEqual([
      ['replay_of', 'same'],
      ['replay_of', 'same'],
    ]);
  });
});

describe('GET /api/v1/sessions/:id/replays', () => {
  it("lists the sessions replaying the session's calls: one call's replays and session replays", async () => {
    const ts = start();
    const [first, second] = await post(ts, 'orig', [call('a', 'echo', { text: 'x' }), call('b', 'tick', {})]);
    await post(ts, 'orig-other', [call('z', 'echo', { text: 'x' })]);
    await replay(ts, second!);
    await replay(ts, first!);
    const whole: Json = await (await callApp(appOf(ts), 'POST', '/api/v1/sessions/orig/replay')).json();
    const listed = await getJson(ts, '/api/v1/sessions/orig/replays');
    expect(listed.sessions.map((s: Json) => [s.id, s.kind]).sort()).toEqual(
      [
        ['orig~replay-1', 'call'],
        ['orig~replay-2', 'call'],
        [whole.session_id, 'session'],
      ].sort(),
    );
    expect(listed.sessions[0]).toMatchObject({ calls: expect.any(Number), last_call_at: expect.any(String) });
    expect((await getJson(ts, '/api/v1/sessions/orig-other/replays')).sessions).toEqual([]);
    const unknown = await callApp(appOf(ts), 'GET', '/api/v1/sessions/nobody/replays');
    expect(unknown.status).toBe(404);
  });
});
