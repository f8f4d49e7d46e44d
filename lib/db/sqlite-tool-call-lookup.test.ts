import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedForm } from './coded-columns';
import { openDatabase, type SqliteDatabase } from './open-database';
import { createSqliteToolCallLookup, TOOL_CALL_LOOKUP_SQL } from './sqlite-tool-call-lookup';

/** The look-up of at most once per tool call id on a migrated SQLite database: what it finds, and its plan. */
let db: SqliteDatabase;
beforeAll(() => {
  db = openDatabase(':memory:');
  db.prepare(
    "INSERT INTO access_keys (id, kind, name, role, created_at) VALUES ('k-one', 'key', 'one', 'agent', 0), ('k-two', 'key', 'two', 'agent', 0)",
  ).run();
});
afterAll(() => db.close());

const ONE = { id: 'k-one', name: 'one', role: 'agent' };
const TWO = { id: 'k-two', name: 'two', role: 'agent' };

let seq = 0;
/** A row as the store writes it (the tool call id in its stored form unless `plain`). */
function insert(row: {
  id?: string;
  toolCallId: string;
  sessionId: string | null;
  principalRef?: number | null;
  plain?: boolean;
  replayOf?: string;
  imported?: 0 | 1;
  servedFrom?: string;
}) {
  seq += 1;
  const id = row.id ?? `trace-${seq}`;
  db.prepare(
    `INSERT INTO tool_calls (id, tool_call_id_stored, session_id, actor_stored, tool_stored, status_stored, sealed_arguments,
      created_at, stages, attempts, metadata, principal_ref, replay_of, imported, served_from)
      VALUES (?, ?, ?, 'api', 'calculator', '', x'00', ?, '[]', '[]', '', ?, ?, ?, ?)`,
  ).run(
    id,
    row.plain ? row.toolCallId : storedForm('tool_call_id', row.toolCallId),
    row.sessionId,
    1_700_000_000_000 + seq,
    row.principalRef ?? null,
    row.replayOf ?? null,
    row.imported ?? 0,
    row.servedFrom ?? null,
  );
  return id;
}

describe('the look-up of a call by session and tool call id', () => {
  it("finds a principal's newest call, in either stored form, and never a replay, an import or a served call", () => {
    const find = createSqliteToolCallLookup(db);
    const first = insert({ toolCallId: 'call_abc', sessionId: 's', principalRef: 1 });
    const newer = insert({ toolCallId: 'call_abc', sessionId: 's', principalRef: 1 });
    const theirs = insert({ toolCallId: 'call_abc', sessionId: 's', principalRef: 2 });
    insert({ toolCallId: 'call_abc', sessionId: 's', principalRef: 1, replayOf: first });
    insert({ toolCallId: 'call_abc', sessionId: 's', principalRef: 1, imported: 1 });
    insert({ toolCallId: 'call_abc', sessionId: 's', principalRef: 1, servedFrom: first });
    const old = insert({ toolCallId: 'call_old', sessionId: 's', plain: true });
    insert({ toolCallId: 'call_none', sessionId: null });

    expect(find({ sessionId: 's', toolCallId: 'call_abc', principal: ONE })).toBe(newer);
    expect(find({ sessionId: 's', toolCallId: 'call_abc', principal: TWO })).toBe(theirs);
    expect(find({ sessionId: 's', toolCallId: 'call_abc', principal: null })).toBeNull();
    expect(find({ sessionId: 'other', toolCallId: 'call_abc', principal: ONE })).toBeNull();
    expect(find({ sessionId: 's', toolCallId: 'call_old', principal: null })).toBe(old);
    expect(find({ sessionId: 's', toolCallId: 'call_none', principal: null })).toBeNull();
  });

  it.each([
    ['without statistics', false],
    ['after ANALYZE', true],
  ])('is one point query on its index %s, which queries by session alone leave be', (_name, analyze) => {
    if (analyze) {
      for (let i = 0; i < 2000; i++) insert({ toolCallId: `call_${i}`, sessionId: `s_${i % 20}` });
      db.exec('ANALYZE');
    }
    const plan = (sql: string, values: Record<string, unknown>) =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(values) as { detail: string }[])
        .map((row) => row.detail)
        .join(' | ');
    expect(plan(TOOL_CALL_LOOKUP_SQL, { sessionId: 's_1', coded: '\u0001x', plain: 'call_x' })).toBe(
      'SEARCH tool_calls USING INDEX tool_calls_session_tool_call_idx (session_id=? AND tool_call_id_stored=?)',
    );
    expect(plan('SELECT MAX(session_seq) FROM tool_calls WHERE session_id = @s', { s: 's_1' })).toBe(
      'SEARCH tool_calls USING INDEX tool_calls_session_seq_idx (session_id=?)',
    );
  });
});
