import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSqliteRecentCalls, RECENT_CALLS_SQL } from './sqlite-recent-calls';
import { createSqliteTraceStore } from './sqlite-trace-store';
import { createTempDataDir, openTestDatabase } from './test-database';
import { makeTrace } from './trace-store-suite';
import { createVault } from './vault';

const temp = createTempDataDir('toolscope-recent-');
afterAll(() => temp.remove());

describe('createSqliteRecentCalls', () => {
  it('reads the newest calls first, with their redacted arguments, after the queued writes', () => {
    const dir = path.join(temp.dir, 'a');
    const db = openTestDatabase(dir);
    const store = createSqliteTraceStore({ db, vault: createVault({ dir }) });
    const recent = createSqliteRecentCalls(db, { beforeRead: () => store.flush() });
    try {
      const old = makeTrace({ tool: 'read_file', sideEffect: 'read', arguments: { path: 'a.md' } });
      const unparsed = makeTrace({ tool: 'calculator', sideEffect: null, arguments: '{"expr', sessionId: null });
      const secret = makeTrace({
        tool: 'http_request',
        sideEffect: 'write',
        arguments: { url: 'https://x.test/?token=[REDACTED]', method: 'POST' },
        actor: 'mcp',
      });
      for (const trace of [old, unparsed, secret]) store.finish(trace);

      expect(recent(2)).toEqual([
        {
          id: secret.id,
          tool: 'http_request',
          sideEffect: 'write',
          arguments: { url: 'https://x.test/?token=[REDACTED]', method: 'POST' },
          actor: 'mcp',
          sessionId: 'session-1',
          argumentsChars: JSON.stringify({ url: 'https://x.test/?token=[REDACTED]', method: 'POST' }).length,
        },
        {
          id: unparsed.id,
          tool: 'calculator',
          sideEffect: null,
          arguments: '{"expr',
          actor: 'api',
          sessionId: null,
          argumentsChars: JSON.stringify('{"expr').length,
        },
      ]);
      expect(recent(1000).map((call) => call.id)).toEqual([secret.id, unparsed.id, old.id]);
    } finally {
      store.close();
    }
  });

  it('walks the primary key backwards, without sorting', () => {
    const db = openTestDatabase(path.join(temp.dir, 'b'));
    try {
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN ${RECENT_CALLS_SQL}`)
        .all(1000)
        .map((row) => (row as { detail: string }).detail)
        .join('\n');
      expect(plan).not.toMatch(/TEMP B-TREE/);
      expect(plan).toMatch(/SCAN tool_calls/);
    } finally {
      db.close();
    }
  });
});
