import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import type { CallStatus, TraceRecord } from '../executor/types';
import { migrate } from './migrate';
import type { SqliteDatabase } from './open-database';
import { sessionTriggersSql } from './session-triggers';
import { SESSION_READ_SQL } from './sqlite-sessions';
import { createSqliteTraceStore } from './sqlite-trace-store';
import { createTempDataDir, openTestDatabase } from './test-database';
import { openDatabaseBefore, writeRowDirectly } from './testing/tool-series-check';
import { makeTrace } from './trace-store-suite';
import { createVault } from './vault';

const temp = createTempDataDir('toolscope-sessions-');
afterAll(() => temp.remove());
let count = 0;
const nextDir = () => path.join(temp.dir, `db-${++count}`);

const T0 = Date.UTC(2026, 10, 30, 12, 0, 0);

/** The aggregate as stored, bounds refreshed, and as grouping `tool_calls` gives it. */
function storedVsGrouped(db: SqliteDatabase) {
  db.prepare(SESSION_READ_SQL.refresh).run();
  const columns =
    'id, first_call_at, last_call_at, last_call_second, last_finished_at, calls, failed, denied, running, approval_wait_ms';
  const stored = db.prepare(`SELECT ${columns} FROM sessions ORDER BY id`).raw().all();
  const grouped = db
    .prepare(
      `SELECT session_id, min(created_at), max(created_at), max(created_at) / 1000, max(finished_at), count(*),
        sum(status = 'failed'), sum(status = 'denied'), sum(status IN ('running', 'awaiting_approval')),
        total(coalesce(json_extract(approval, '$.decidedAt') - json_extract(approval, '$.requestedAt'), 0))
        FROM tool_calls WHERE session_id IS NOT NULL GROUP BY session_id ORDER BY session_id`,
    )
    .raw()
    .all();
  return { stored, grouped };
}

describe('the sessions aggregate (SQLite)', () => {
  it('0008 holds exactly the SQL generated for it', () => {
    const migration = fs
      .readdirSync('drizzle')
      .filter((name) => /^\d+_sessions\.sql$/.test(name))
      .map((name) => fs.readFileSync(path.join('drizzle', name), 'utf8'));
    expect(migration).toHaveLength(1);
    expect(migration[0]).toContain(sessionTriggersSql());
  });

  it('0008 backfills the sessions of calls recorded before it', () => {
    const dir = nextDir();
    const old = openDatabaseBefore(dir, '_sessions');
    const vault = createVault({ dir });
    const approval = {
      rule: 'ask',
      requestedAt: T0 + 5,
      expiresAt: null,
      decision: 'approved' as const,
      by: 'api',
      decidedAt: T0 + 255,
      reason: null,
      ruleCreated: null,
    };
    writeRowDirectly(old, vault, makeTrace({ sessionId: 'a', createdAt: T0, finishedAt: T0 + 300, approval }));
    writeRowDirectly(old, vault, makeTrace({ sessionId: 'a', createdAt: T0 + 9, status: 'failed' }));
    writeRowDirectly(old, vault, makeTrace({ sessionId: 'b', status: 'running', finishedAt: null }));
    writeRowDirectly(old, vault, makeTrace({ sessionId: null }));
    migrate(old);
    const { stored, grouped } = storedVsGrouped(old);
    expect(stored).toEqual(grouped);
    expect(stored).toHaveLength(2);
    expect(stored[0]).toEqual(['a', T0, T0 + 9, Math.floor((T0 + 9) / 1000), T0 + 300, 2, 1, 0, 0, 250]);
    old.close();
  });

  it('lists through the last-call index without sorting, and reads a session by its key', () => {
    const db = openTestDatabase(nextDir());
    const plan = (sql: string, params: Record<string, unknown>) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[]).map((row) => row.detail).join('\n');
    for (const filters of [
      { cursor: false, text: false, failedOnly: false },
      { cursor: true, text: true, failedOnly: true },
    ]) {
      const detail = plan(SESSION_READ_SQL.list(filters), {
        limit: 51,
        at: T0,
        second: T0 / 1000,
        id: 'x',
        pattern: '%x%',
      });
      expect(detail).toContain('sessions_last_call_second_idx');
      // Sorted within one second at a time, never the whole table.
      expect(detail).not.toMatch(/TEMP B-TREE FOR ORDER BY/);
      expect(detail).toContain('TEMP B-TREE FOR LAST 2 TERMS OF ORDER BY');
    }
    expect(plan(SESSION_READ_SQL.one, { id: 'x' })).toMatch(/USING INDEX sqlite_autoindex_sessions_1/);
    expect(plan(SESSION_READ_SQL.calls, { id: 'x', limit: 10 })).toContain('tool_calls_session_seq_idx');
    db.close();
  });

  it('equals grouping the calls after any sequence of writes, status changes, deletes and retention', () => {
    const statuses: CallStatus[] = ['succeeded', 'failed', 'denied', 'cancelled', 'interrupted'];
    const command = fc.oneof(
      fc.record({
        kind: fc.constant('begin' as const),
        session: fc.constantFrom('s1', 's2', 's3', null),
        at: fc.integer({ min: 0, max: 4000 }),
        durable: fc.boolean(),
        waits: fc.boolean(),
      }),
      fc.record({
        kind: fc.constant('finish' as const),
        pick: fc.nat(),
        status: fc.constantFrom(...statuses),
        after: fc.integer({ min: 0, max: 500 }),
      }),
      fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('deleteSession' as const), session: fc.constantFrom('s1', 's2', 's3') }),
      fc.record({ kind: fc.constant('prune' as const), before: fc.integer({ min: 0, max: 4000 }), keep: fc.nat(8) }),
      fc.record({ kind: fc.constant('interrupt' as const) }),
    );
    fc.assert(
      fc.property(fc.array(command, { maxLength: 40 }), (commands) => {
        const dir = nextDir();
        const db = openTestDatabase(dir);
        const store = createSqliteTraceStore({ db, vault: createVault({ dir }) });
        const reader = openTestDatabase(dir);
        const begun: TraceRecord[] = [];
        try {
          for (const c of commands) {
            if (c.kind === 'begin') {
              const createdAt = T0 + c.at;
              const trace = makeTrace({
                sessionId: c.session,
                createdAt,
                status: c.waits ? 'awaiting_approval' : 'running',
                sideEffect: c.durable ? 'write' : 'read',
                finishedAt: null,
                latencyMs: null,
                approval: c.waits
                  ? {
                      rule: 'ask',
                      requestedAt: createdAt + 1,
                      expiresAt: null,
                      decision: null,
                      by: null,
                      decidedAt: null,
                      reason: null,
                      ruleCreated: null,
                    }
                  : null,
              });
              store.begin(trace);
              begun.push(trace);
            } else if (c.kind === 'finish' && begun.length > 0) {
              const trace = begun[c.pick % begun.length] as TraceRecord;
              const finishedAt = trace.createdAt + c.after;
              void store.finish({
                ...trace,
                status: c.status,
                finishedAt,
                latencyMs: c.after,
                approval: trace.approval ? { ...trace.approval, decision: 'approved', decidedAt: finishedAt } : null,
              });
            } else if (c.kind === 'delete' && begun.length > 0) {
              store.delete((begun[c.pick % begun.length] as TraceRecord).id);
            } else if (c.kind === 'deleteSession') {
              store.deleteSession(c.session);
            } else if (c.kind === 'prune') {
              store.prune({ createdBefore: T0 + c.before, keepNewest: c.keep, limit: 3 });
            } else if (c.kind === 'interrupt') {
              store.markInterrupted(T0 + 5000);
            }
          }
          store.flush();
          const { stored, grouped } = storedVsGrouped(reader);
          expect(stored).toEqual(grouped);
        } finally {
          reader.close();
          store.close();
        }
      }),
      { numRuns: 60 },
    );
  });
});
