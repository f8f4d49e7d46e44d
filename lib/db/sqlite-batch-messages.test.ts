import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from './open-database';
import { BATCH_SQL } from './sqlite-batch-messages';

// The batches table is read by primary key, and the triggers that delete a batch's message with
// its last call (migration 0009) probe it by primary key first: a call whose batch has no
// message — nearly all — costs one failed index probe when deleted, never a scan of the calls.

let db: SqliteDatabase;
beforeAll(() => {
  db = openDatabase(':memory:');
});
afterAll(() => db.close());

function planOf(sql: string, params: Record<string, unknown>): string {
  return (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { detail: string }[])
    .map((row) => row.detail)
    .join('\n');
}

describe('batches query plans', () => {
  it('reads messages by primary key', () => {
    expect(planOf(BATCH_SQL.byIds, { ids: '["a","b"]' })).toMatch(
      /SEARCH batches USING INDEX sqlite_autoindex_batches_1 \(id=\?\)/,
    );
  });

  it('finds the batch by primary key, and the calls left in it through the session index', () => {
    const plan = planOf(
      `DELETE FROM batches WHERE id = @batchId AND NOT EXISTS (
        SELECT 1 FROM tool_calls WHERE session_id = @sessionId AND batch_id = @batchId)`,
      { batchId: 'b', sessionId: 's' },
    );
    expect(plan).toMatch(/^SEARCH batches USING INDEX sqlite_autoindex_batches_1 \(id=\?\)/);
    expect(plan).toMatch(/SEARCH tool_calls USING INDEX tool_calls_session_seq_idx \(session_id=\?\)/);
  });

  it('defines the triggers the migration adds', () => {
    const triggers = db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'tool_calls' AND name LIKE 'batches_%'",
      )
      .pluck()
      .all();
    expect(triggers.sort()).toEqual(['batches_after_call_delete', 'batches_after_call_delete_in_session']);
  });
});
