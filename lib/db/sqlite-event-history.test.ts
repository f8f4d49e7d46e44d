import { describe, expect, it } from 'vitest';
import { testPrincipal } from '../access/testing/principals';
import { testToolscopes } from '../server/testing/test-toolscopes';
import { openDatabase } from './open-database';
import { createSqliteEventHistory } from './sqlite-event-history';

const toolscopes = testToolscopes('toolscope-event-history-');
const all = { tool: null, session: null, trace: null, principal: null };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Polls `check` until it holds (a hang fails on the test's time limit). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await sleep(5);
}

describe('createSqliteEventHistory', () => {
  it('reads the begins, finishes and approvals since a time, in order, for calls begun before it too', async () => {
    const ts = toolscopes.start(toolscopes.dataDir({ policies: { run_shell: 'allow' }, shell: { allow: ['sleep'] } }));
    const db = openDatabase(ts.config.dbPath);
    try {
      const history = createSqliteEventHistory(db, { lookbackMs: 60_000 });
      const before = await ts.executor.execute({ name: 'calculator', arguments: { expression: '1' } });
      const slow = ts.executor.execute({ name: 'run_shell', arguments: { command: ['sleep', '0.3'] } });
      // Begun (its begin is recorded) before `since`, a few ms apart; it ends after it.
      await until(() => ts.executor.inFlightIds().length === 1);
      await sleep(5);
      const since = Date.now();
      await sleep(5);
      const asked = ts.executor.execute(
        { name: 'write_file', arguments: { path: 'a.txt', content: 'x' } },
        { sessionId: 's-1' },
      );
      await until(() => ts.approvals.list().length === 1);
      const after = await ts.executor.execute(
        { name: 'calculator', arguments: { expression: '2' } },
        { sessionId: 's-1' },
      );
      const slowId = (await slow).metadata.traceId;
      const pending = ts.approvals.list()[0]!.traceId;

      const events = history.since(since, all, 100)!;
      const seen = events.map((e) => `${e.data.trace_id}:${e.data.type}`);
      expect(seen).toContain(`${slowId}:finish`);
      expect(seen).not.toContain(`${slowId}:begin`);
      expect(seen.some((s) => s.startsWith(before.metadata.traceId))).toBe(false);
      expect(seen.filter((s) => s.startsWith(pending))).toEqual([`${pending}:begin`, `${pending}:requested`]);
      expect(seen.filter((s) => s.startsWith(after.metadata.traceId))).toEqual([
        `${after.metadata.traceId}:begin`,
        `${after.metadata.traceId}:finish`,
      ]);
      const times = events.map((e) => e.data.at);
      expect(times).toEqual([...times].sort((a, b) => a - b));
      expect(events.find((e) => e.data.type === 'finish' && e.data.trace_id === slowId)?.data).toMatchObject({
        status: 'succeeded',
        tool: 'run_shell',
        session_id: null,
      });

      // A filter applies; more than the limit is null (the stream sends a reset).
      const session = history.since(since, { ...all, session: 's-1' }, 100)!;
      expect(new Set(session.map((e) => e.data.trace_id))).toEqual(new Set([pending, after.metadata.traceId]));
      expect(history.since(since, all, 2)).toBeNull();

      ts.approvals.decide(pending, { decision: 'approve' }, testPrincipal('tester'));
      await asked;
      const decided = history.since(since, { ...all, trace: pending }, 100)!;
      expect(decided.map((e) => e.data.type)).toEqual(['begin', 'requested', 'decided', 'finish']);
      expect(decided[2]!.data).toMatchObject({ decision: 'approved' });
    } finally {
      db.close();
    }
  });
});
