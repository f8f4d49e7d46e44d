import { describe, expect, it, vi } from 'vitest';
import type { Toolscope } from '../../server/create-toolscope';
import { testToolscopes } from '../../server/testing/test-toolscopes';
import { type Json, sendJson } from '../testing/call-app';

/**
 * Imports stay in their lane: through `POST /api/v1/import` on real Toolscopes (SQLite files,
 * the executor), an imported trace links to no local one and joins no session that is here.
 */
const toolscopes = testToolscopes('toolscope-import-lane-');

const start = (): Toolscope => toolscopes.start(toolscopes.dataDir());

const calc = (id: string, expression: string) => ({
  id,
  type: 'function',
  function: { name: 'calculator', arguments: JSON.stringify({ expression }) },
});

/** Runs `request` with the clock at `time` (Date only). */
async function at<T>(time: string, request: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.parse(time) });
  try {
    return await request();
  } finally {
    vi.useRealTimers();
  }
}

async function run(ts: Toolscope, sessionId: string, calls: object[]): Promise<string[]> {
  const answer = await sendJson(ts, 'POST', '/api/v1/tool-calls', { session_id: sessionId, tool_calls: calls });
  expect(answer.status).toBe(200);
  return answer.json.results.map((result: Json) => result.trace_id);
}

async function get(ts: Toolscope, path: string): Promise<Json> {
  const answer = await sendJson(ts, 'GET', path);
  expect(answer.status, path).toBe(200);
  return answer.json;
}

const session = (ts: Toolscope, id: string) => get(ts, `/api/v1/sessions/${encodeURIComponent(id)}`);

describe('an import whose session id is taken here', () => {
  it('goes into a session of its own, marked imported; its links stay within the file', async () => {
    const source = start();
    // Recorded elsewhere, earlier: two calls and a replay of the first, in session "shared" (as a
    // Toolscope wrote replays before they got sessions of their own: the file says so).
    const [s1, s2] = await at('2025-06-01T10:00:00Z', () =>
      run(source, 'shared', [calc('s1', '1+1'), calc('s2', '2+2')]),
    );
    const [replayed] = await at('2025-06-01T10:01:00Z', () => run(source, 'shared', [calc('s3', '1+1')]));
    const file = (await sendJson(source, 'GET', '/api/v1/sessions/shared/export')).json;
    expect(file.traces.map((t: Json) => t.id)).toEqual([s1, s2, replayed]);
    file.traces[2].replay_of = s1;

    const target = start();
    const local = await run(target, 'shared', [calc('l1', '3+3'), calc('l2', '4+4')]);
    // A file edited to point its calls at the local ones.
    file.traces[1].replay_of = local[0];
    file.traces[1].served_from = local[1];

    const imported = await sendJson(target, 'POST', '/api/v1/import', file);
    expect(imported.status).toBe(201);
    const landed = imported.json.session_id;
    expect(landed).toMatch(/^shared@import-[0-9a-f]{8}$/);
    expect(imported.json).toMatchObject({ kind: 'session', renamed_from: 'shared', imported: 3 });

    // The local session is as it was: its calls only, in the order they began, not imported.
    const mine = await session(target, 'shared');
    expect(mine.imported).toBe(false);
    expect(mine.calls.map((c: Json) => [c.id, c.session_seq])).toEqual([
      [local[0], 1],
      [local[1], 2],
    ]);
    expect((await get(target, '/api/v1/traces?session=shared')).items.map((t: Json) => t.id)).toEqual([
      local[1],
      local[0],
    ]);
    // The import's session: its calls, in their order, marked imported.
    const theirs = await session(target, landed);
    expect(theirs).toMatchObject({ imported: true, first_call_at: '2025-06-01T10:00:00.000Z' });
    expect(theirs.calls.map((c: Json) => c.id)).toEqual([s1, s2, replayed]);
    expect((await get(target, `/api/v1/traces/${s2}`)).session_id).toBe(landed);
    // The sessions list: each marked as it is, newest activity first.
    const listed = (await get(target, '/api/v1/sessions')).sessions;
    expect(listed.map((s: Json) => [s.id, s.imported, s.calls])).toEqual([
      ['shared', false, 2],
      [landed, true, 3],
    ]);

    // Links: the replay within the file is kept; the ones to local calls are dropped.
    expect(await get(target, `/api/v1/traces/${s2}`)).toMatchObject({ replay_of: null, served_from: null });
    expect((await get(target, `/api/v1/traces/${replayed}`)).replay_of).toBe(s1);
    expect((await get(target, `/api/v1/traces/${s1}`)).replays).toEqual([replayed]);
    for (const id of local) {
      expect(await get(target, `/api/v1/traces/${id}`)).toMatchObject({ replays: [], session_id: 'shared' });
    }
  });

  it("joins no earlier import's session either; a free session id is kept, and a long one stays readable", async () => {
    const source = start();
    const long = `s${'x'.repeat(255)}`;
    const [a, b] = await run(source, 'twice', [calc('a', '1+1'), calc('b', '1+2')]);
    const [c] = await run(source, long, [calc('c', '1+3')]);
    const exportOf = async (id: string) => (await sendJson(source, 'GET', `/api/v1/traces/${id}/export`)).json;

    const target = start();
    const first = await sendJson(target, 'POST', '/api/v1/import', await exportOf(a as string));
    expect(first.json).toMatchObject({ session_id: 'twice', renamed_from: null });
    const second = await sendJson(target, 'POST', '/api/v1/import', await exportOf(b as string));
    expect(second.json).toMatchObject({ renamed_from: 'twice' });
    expect(second.json.session_id).toMatch(/^twice@import-[0-9a-f]{8}$/);
    expect((await session(target, 'twice')).calls.map((call: Json) => call.id)).toEqual([a]);

    await run(target, long, [calc('mine', '2+2')]);
    const third = await sendJson(target, 'POST', '/api/v1/import', await exportOf(c as string));
    expect(third.json.renamed_from).toBe(long);
    expect(third.json.session_id).toHaveLength(256);
    expect(third.json.session_id).toMatch(/^sx+@import-[0-9a-f]{8}$/);
    expect((await session(target, third.json.session_id)).calls.map((call: Json) => call.id)).toEqual([c]);
  });
});
