import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../executor/manual-clock';
import type { TraceRecord } from '../executor/types';
import { reserveReplaySession } from '../replay/replay-sessions';
import { openDatabase, type SqliteDatabase } from './open-database';
import { createSqliteTraceStore } from './sqlite-trace-store';
import { createTempDataDir } from './test-database';
import { openDatabaseBefore } from './testing/tool-series-check';
import { makeTrace } from './trace-store-suite';
import { createVault } from './vault';

/**
 * Migration 0018 on a database written at 0017 by the store of its day: replays written into the
 * session of the call they replay move into sessions of their own, with `sessions` and
 * `session_seq` left as the store would have written them.
 */
const temp = createTempDataDir('toolscope-replays-own-sessions-');
afterAll(() => temp.remove());

const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);
const uuid = (n: number) => `0192f3a4-5b6c-7d8e-9fa0-${n.toString(16).padStart(12, '0')}`;

/** The aggregate as stored and as grouping `tool_calls` gives it (bounds, counts, waits). */
function storedVsGrouped(db: SqliteDatabase) {
  const columns =
    'id, first_call_at, last_call_at, last_call_second, last_finished_at, calls, failed, denied, running, approval_wait_ms';
  const stored = db.prepare(`SELECT ${columns}, stale FROM sessions ORDER BY id`).raw().all();
  const grouped = db
    .prepare(
      `SELECT session_id, min(created_at), max(created_at), max(created_at) / 1000, max(finished_at), count(*),
        sum(status = 'failed'), sum(status = 'denied'), sum(status IN ('running', 'awaiting_approval')),
        total(coalesce(json_extract(approval, '$.decidedAt') - json_extract(approval, '$.requestedAt'), 0)), 0
        FROM tool_calls WHERE session_id IS NOT NULL GROUP BY session_id ORDER BY session_id`,
    )
    .raw()
    .all();
  return { stored, grouped };
}

describe('migration 0018 (replays in sessions of their own)', () => {
  it('moves each replay written into its original session into <session>~replay-<n>, and leaves the rest', () => {
    const dir = path.join(temp.dir, 'moves');
    const old = openDatabaseBefore(dir, '_replays_own_sessions');
    const vault = createVault({ dir });
    const store = createSqliteTraceStore({ db: old, vault, timers: createManualClock() });
    const at = (ms: number, overrides: Partial<TraceRecord>) =>
      makeTrace({ createdAt: T0 + ms, finishedAt: T0 + ms + 5, latencyMs: 5, ...overrides });
    const replayOf = (original: string, ms: number, overrides: Partial<TraceRecord> = {}) =>
      at(ms, {
        replayOf: original,
        actor: 'replay',
        flags: { retried: false, fellBack: false, truncated: false, faulted: false, replayed: true },
        ...overrides,
      });
    const s = 'research-7';
    // research-7 as the store of 0017 wrote it: the agent's calls, and replays in between them.
    const a1 = at(0, { id: uuid(1), sessionId: s });
    const a2 = at(10, { id: uuid(2), sessionId: s });
    const r1 = replayOf(a1.id, 500, { id: uuid(3), sessionId: s });
    const a3 = at(600, { id: uuid(4), sessionId: s });
    // A replay of a replay, and one that failed, last of the session: the bounds move.
    const r2 = replayOf(r1.id, 700, { id: uuid(5), sessionId: s });
    const r3 = replayOf(a2.id, 900, {
      id: uuid(6),
      sessionId: s,
      status: 'failed',
      output: undefined,
      error: { code: 'INJECTED_FAULT', message: 'boom', retryable: false, kind: 'business' },
    });
    // A session already named like a replay of research-7: the numbers go on after it.
    const named = at(50, { id: uuid(7), sessionId: `${s}~replay-1` });
    // A session replay's session (replays only, originals elsewhere), and a replay without a session: stay.
    const copied = replayOf(a1.id, 1000, { id: uuid(8), sessionId: 'replay-0192f3a4' });
    const unsessioned = replayOf(a1.id, 1100, { id: uuid(9), sessionId: null });
    // An original with a text id (not a UUID), and a replay whose original was deleted, in an agent's session.
    const legacy = at(20, { id: 'legacy-call', sessionId: 'old' });
    const legacyReplay = replayOf('legacy-call', 30, { id: uuid(10), sessionId: 'old' });
    const agent = at(40, { id: uuid(11), sessionId: 'gone' });
    const orphan = replayOf(uuid(99), 45, { id: uuid(12), sessionId: 'gone' });
    for (const trace of [a1, a2, r1, a3, r2, r3, named, copied, unsessioned, legacy, legacyReplay, agent, orphan]) {
      store.finish(trace);
    }
    store.flush();
    expect(store.get(a3.id)?.sessionSeq).toBe(4);
    store.close();

    // The real migrator, as a start of the new release runs it.
    const db = openDatabase(path.join(dir, 'toolscope.db'));
    // The aggregate is what grouping the calls gives, bounds included (no session left stale).
    const { stored, grouped } = storedVsGrouped(db);
    expect(stored).toEqual(grouped);
    const after = createSqliteTraceStore({ db, vault, timers: createManualClock() });
    const placeOf = (id: string) => {
      const trace = after.get(id);
      return [trace?.sessionId, trace?.sessionSeq, trace?.replayOf];
    };
    expect([a1, a2, a3].map((t) => placeOf(t.id))).toEqual([
      [s, 1, null],
      [s, 2, null],
      [s, 3, null],
    ]);
    expect([r1, r2, r3].map((t) => placeOf(t.id))).toEqual([
      [`${s}~replay-2`, 1, a1.id],
      [`${s}~replay-3`, 1, r1.id],
      [`${s}~replay-4`, 1, a2.id],
    ]);
    expect(placeOf(named.id)).toEqual([`${s}~replay-1`, 1, null]);
    expect(placeOf(copied.id)).toEqual(['replay-0192f3a4', 1, a1.id]);
    expect(placeOf(unsessioned.id)).toEqual([null, null, a1.id]);
    expect(placeOf(legacyReplay.id)).toEqual(['old~replay-1', 1, 'legacy-call']);
    expect(placeOf(legacy.id)).toEqual(['old', 1, null]);
    expect(placeOf(orphan.id)).toEqual(['gone~replay-1', 1, uuid(99)]);
    expect(placeOf(agent.id)).toEqual(['gone', 1, null]);

    // research-7 now ends at a3.
    expect(after.getSession(s)).toMatchObject({
      calls: 3,
      failed: 0,
      firstCallAt: T0,
      lastCallAt: T0 + 600,
      lastFinishedAt: T0 + 605,
    });
    expect(after.getSession(`${s}~replay-4`)).toMatchObject({ calls: 1, failed: 1, firstCallAt: T0 + 900 });
    expect(after.list({ sessionId: s }).items.map((item) => item.id)).toEqual([a3.id, a2.id, a1.id]);
    expect(after.replays(a1.id)).toEqual([r1.id, copied.id, unsessioned.id]);

    // The store carries on from there: the next call of research-7 is its 4th, the next replay session the 5th.
    after.finish(at(2000, { id: uuid(20), sessionId: s }));
    after.flush();
    expect(after.get(uuid(20))?.sessionSeq).toBe(4);
    expect(reserveReplaySession(after, s)).toBe(`${s}~replay-5`);
    expect(reserveReplaySession(after, 'old')).toBe('old~replay-2');
    expect(db.prepare("SELECT count(*) FROM sqlite_temp_master WHERE name = 'replay_moves'").pluck().get()).toBe(0);
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    after.close();
  });
});
