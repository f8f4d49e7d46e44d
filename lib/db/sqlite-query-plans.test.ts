import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setStoredForms } from './coded-columns';
import type { ListFilter } from './list-query';
import { openDatabase, type SqliteDatabase } from './open-database';
import { LIST_TOTAL_SQL, listTracesSql } from './sqlite-list-traces';
import { TOOL_STATS_SQL } from './sqlite-tool-stats';
import { TRACE_DELETE_SQL } from './sqlite-trace-deletion';
import { TRACE_NAVIGATION_SQL } from './sqlite-trace-navigation';
import { TRACE_READ_SQL, TRACE_WRITE_SQL } from './sqlite-trace-store';
import type { TimeRangePlan } from './time-range-plan';
import { encodeTraceId } from './trace-id';
import { encodeTraceRecord } from './trace-row';
import { makeTrace } from './trace-store-suite';

// The plans each query shape must get. Timings for these plans at a million rows are in the
// report of the change that added them; here we pin the plans, which do not depend on size.
// Every shape is checked twice: on a fresh database (no statistics, as after install) and after
// ANALYZE over skewed data (SQLite then weighs bound values against its samples).

let db: SqliteDatabase;
beforeAll(() => {
  db = openDatabase(':memory:');
});
afterAll(() => db.close());

const params = {
  tool: 'tool_3',
  status: 'failed',
  sessionId: 's_1',
  from: 1_700_000_000_000,
  to: 1_700_000_360_000,
  beforeSeq: 900,
  pattern: '%x%',
  prefix: 'x%',
  suffix: '%x',
  limit: 51,
  id: 'trace-1',
  now: 1,
  error: '{}',
  code: 'X',
};

// A lookup by id passes both its stored forms (see trace-id.ts).
const byId = {
  id: encodeTraceId('0192f000-0000-7000-8000-000000000001'),
  idText: '0192f000-0000-7000-8000-000000000001',
};

function planOf(sql: string, values: unknown[] | Record<string, unknown> = params): string {
  const rows = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(values) as { detail: string }[];
  return rows.map((row) => row.detail).join(' | ');
}

const list = (filter: Omit<ListFilter, 'limit'>, plan: TimeRangePlan | null = null) =>
  planOf(listTracesSql({ limit: 50, ...filter }, plan));

function seed() {
  const insert =
    db.prepare(`INSERT INTO tool_calls (id, tool_call_id_stored, session_id, actor_stored, tool_stored, status_stored, sealed_arguments,
    created_at, latency_stored, stages, attempts, metadata) VALUES (?, ?, ?, 'api', ?, ?, x'00', ?, 5, '[]', '[]', '{}')`);
  db.transaction(() => {
    for (let i = 0; i < 5000; i++) {
      const status = i % 50 === 0 ? 'failed' : i > 4990 ? 'running' : 'succeeded';
      insert.run(`t${i}`, `c${i}`, `s_${Math.floor(i / 100)}`, `tool_${i % 20}`, status, 1_700_000_000_000 + i * 100);
    }
  })();
  db.exec('ANALYZE');
}

describe.each([
  ['without statistics', () => {}],
  ['after ANALYZE', seed],
])('query plans %s', (_name, setup) => {
  beforeAll(setup);

  it('walks newest first without sorting when there is no time range', () => {
    expect(list({})).toBe('SCAN tool_calls');
    expect(list({ beforeSeq: 1 })).toBe('SEARCH tool_calls USING INTEGER PRIMARY KEY (rowid<?)');
    expect(list({ tool: 't', beforeSeq: 1 })).toBe(
      'SEARCH tool_calls USING INDEX tool_calls_tool_seq_idx (tool=? AND rowid<?)',
    );
    expect(list({ status: 'running', beforeSeq: 1 })).toBe(
      'SEARCH tool_calls USING INDEX tool_calls_status_seq_idx (status=? AND rowid<?)',
    );
    // The status index is partial (no succeeded calls): that filter walks the rowid, in a bounded window.
    expect(list({ status: 'succeeded', beforeSeq: 1 })).toBe('SEARCH tool_calls USING INTEGER PRIMARY KEY (rowid<?)');
    expect(planOf(listTracesSql({ limit: 50, status: 'succeeded' }, null, true), { ...params, floorSeq: 1 })).toBe(
      'SEARCH tool_calls USING INTEGER PRIMARY KEY (rowid>?)',
    );
    expect(list({ sessionId: 's', beforeSeq: 1 })).toBe(
      'SEARCH tool_calls USING INDEX tool_calls_session_seq_idx (session_id=? AND rowid<?)',
    );
    expect(list({ text: 'x' })).toBe('SCAN tool_calls');
    for (const filter of [
      { tool: 't', status: 'failed' as const },
      { tool: 't', sessionId: 's' },
      { status: 'failed' as const, sessionId: 's', text: 'x' },
      { tool: 't', status: 'succeeded' as const, sessionId: 's', beforeSeq: 1 },
    ]) {
      const plan = list(filter);
      expect(plan, JSON.stringify(filter)).toMatch(/^SEARCH tool_calls USING INDEX tool_calls_\w+_idx/);
      expect(plan, JSON.stringify(filter)).not.toContain('TEMP B-TREE');
    }
  });

  it('walks the rowid (bounded by the scan window) for the faulted filter, never sorting', () => {
    expect(list({ faulted: true })).toBe('SCAN tool_calls');
    expect(planOf(listTracesSql({ limit: 50, faulted: true }, null, true), { ...params, floorSeq: 1 })).toBe(
      'SEARCH tool_calls USING INTEGER PRIMARY KEY (rowid>?)',
    );
    expect(list({ faulted: true, beforeSeq: 1 })).toBe('SEARCH tool_calls USING INTEGER PRIMARY KEY (rowid<?)');
    expect(list({ faulted: true, tool: 't' })).toBe('SEARCH tool_calls USING INDEX tool_calls_tool_seq_idx (tool=?)');
    expect(list({ faulted: true, status: 'failed', beforeSeq: 1 })).toBe(
      'SEARCH tool_calls USING INDEX tool_calls_status_seq_idx (status=? AND rowid<?)',
    );
  });

  it('pins the chosen walk for a time range', () => {
    expect(list({ from: 1, to: 2 }, 'created-at-index')).toBe(
      'SEARCH tool_calls USING INDEX tool_calls_created_at_idx (created_at>? AND created_at<?) | USE TEMP B-TREE FOR ORDER BY',
    );
    expect(list({ tool: 't', from: 1, beforeSeq: 1 }, 'created-at-index')).toMatch(
      /^SEARCH tool_calls USING INDEX tool_calls_created_at_idx \(created_at>\?\)/,
    );
    expect(list({ from: 1, to: 2 }, 'seq-scan')).toBe('SCAN tool_calls');
    expect(list({ from: 1, beforeSeq: 1 }, 'seq-scan')).toBe('SEARCH tool_calls USING INTEGER PRIMARY KEY (rowid<?)');
    expect(list({ tool: 't', from: 1, to: 2 }, 'seq-scan')).toBe(
      'SEARCH tool_calls USING INDEX tool_calls_tool_seq_idx (tool=?)',
    );
  });

  it('estimates a time range from the created_at index alone', () => {
    expect(planOf('SELECT seq FROM tool_calls WHERE created_at >= ? ORDER BY created_at LIMIT 1', [1])).toBe(
      'SEARCH tool_calls USING COVERING INDEX tool_calls_created_at_idx (created_at>?)',
    );
    expect(planOf('SELECT seq FROM tool_calls WHERE created_at < ? ORDER BY created_at DESC LIMIT 1', [1])).toBe(
      'SEARCH tool_calls USING COVERING INDEX tool_calls_created_at_idx (created_at<?)',
    );
  });

  it('reads tool totals from the counts table and latencies from the (tool, seq) index', () => {
    // One row per tool: the scan is over a handful of rows, in primary-key (tool) order.
    expect(planOf(TOOL_STATS_SQL.totals, [])).toMatch(
      /^SCAN tool_counts( USING INDEX sqlite_autoindex_tool_counts_1)?$/,
    );
    expect(planOf(TOOL_STATS_SQL.latencies, ['t', 10])).toBe(
      'SEARCH tool_calls USING INDEX tool_calls_tool_seq_idx (tool=?)',
    );
  });

  it('reads cheap totals and the tool names from the counts table', () => {
    expect(planOf(LIST_TOTAL_SQL.all, [])).toMatch(/^SCAN tool_counts/);
    expect(planOf(LIST_TOTAL_SQL.tool, ['t'])).toBe(
      'SEARCH tool_counts USING INDEX sqlite_autoindex_tool_counts_1 (tool=?)',
    );
    expect(planOf(TRACE_NAVIGATION_SQL.tools, [])).toMatch(/^SCAN tool_counts/);
    expect(planOf(TRACE_DELETE_SQL.total, [])).toMatch(/^SCAN tool_counts/);
  });

  it('steps to the neighbouring call along the primary key from the id index', () => {
    const subquery = 'SCALAR SUBQUERY 1 | SEARCH tool_calls USING COVERING INDEX tool_calls_id_unique (id=?)';
    expect(planOf(TRACE_NAVIGATION_SQL.newer, byId)).toBe(
      `SEARCH tool_calls USING INTEGER PRIMARY KEY (rowid>?) | ${subquery}`,
    );
    expect(planOf(TRACE_NAVIGATION_SQL.older, byId)).toBe(
      `SEARCH tool_calls USING INTEGER PRIMARY KEY (rowid<?) | ${subquery}`,
    );
  });

  it('deletes by id, by session, and prunes oldest first through an index', () => {
    expect(planOf(TRACE_DELETE_SQL.one, byId)).toBe('SEARCH tool_calls USING INDEX tool_calls_id_unique (id=?)');
    expect(planOf(TRACE_DELETE_SQL.exists, byId)).toBe(
      'SEARCH tool_calls USING COVERING INDEX tool_calls_id_unique (id=?)',
    );
    expect(planOf(TRACE_DELETE_SQL.session, ['s_1'])).toBe(
      'SEARCH tool_calls USING INDEX tool_calls_session_seq_idx (session_id=?)',
    );
    // Either index is small work: a session's calls, or the few calls still unfinished.
    expect(planOf(TRACE_DELETE_SQL.sessionUnfinished, ['s_1'])).toMatch(
      /^SEARCH tool_calls USING INDEX (tool_calls_session_seq_idx \(session_id=\?\)|tool_calls_status_seq_idx \(status=\?\))$/,
    );
    const bySeq = 'SEARCH tool_calls USING INTEGER PRIMARY KEY (rowid=?) | LIST SUBQUERY 1';
    expect(planOf(TRACE_DELETE_SQL.expired, { before: 1, limit: 500 })).toBe(
      `${bySeq} | SEARCH tool_calls USING INDEX tool_calls_created_at_idx (created_at<?)`,
    );
    expect(planOf(TRACE_DELETE_SQL.excess, { limit: 500 })).toBe(`${bySeq} | SCAN tool_calls`);
  });

  it('lists the replays of a trace through the partial replay_of index', () => {
    expect(planOf(TRACE_READ_SQL.replays, { id: 'x' })).toMatch(
      /^SEARCH tool_calls USING (COVERING )?INDEX tool_calls_replay_of_idx \(replay_of=\?\)$/,
    );
  });

  it("reads a session's last number through the session index, once per session a process sees", () => {
    expect(planOf(TRACE_READ_SQL.sessionSeqMax, { sessionId: 's_1' })).toBe(
      'SEARCH tool_calls USING INDEX tool_calls_session_seq_idx (session_id=?)',
    );
  });

  it('finds rows to update by id, and running rows by status', () => {
    const values: Record<string, unknown> = { ...encodeTraceRecord(makeTrace(), 1), sealedEditedArguments: null };
    setStoredForms(values);
    for (const update of [TRACE_WRITE_SQL.update, TRACE_WRITE_SQL.updateFinished])
      expect(planOf(update, values)).toBe('SEARCH tool_calls USING INDEX tool_calls_id_unique (id=?)');
    for (const interrupt of [TRACE_WRITE_SQL.interrupt, TRACE_WRITE_SQL.interruptFinished])
      expect(planOf(interrupt)).toMatch(
        /^SEARCH tool_calls USING (COVERING )?INDEX tool_calls_status_seq_idx \(status=\?\)$/,
      );
    expect(planOf('SELECT * FROM tool_calls WHERE id = ?', ['x'])).toBe(
      'SEARCH tool_calls USING INDEX tool_calls_id_unique (id=?)',
    );
  });
});
