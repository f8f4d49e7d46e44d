import type { SqliteDatabase } from './open-database';
import type { AssistantMessage, BatchMessage } from './trace-store';

/** The statements of the batches table; exported for the query-plan tests. */
export const BATCH_SQL = {
  // OR IGNORE: a batch id is new per request; an import may bring one that is already stored.
  insert: `INSERT OR IGNORE INTO batches (id, session_id, created_at, assistant_text, assistant_model, assistant_truncated)
    VALUES (@batchId, @sessionId, @createdAt, @text, @model, @truncated)`,
  byIds: `SELECT id, assistant_text AS text, assistant_model AS model, assistant_truncated AS truncated
    FROM batches WHERE id IN (SELECT value FROM json_each(@ids))`,
} as const;

/** Batch ids read per statement: a session's batches in a few reads, never one huge JSON parameter. */
const IDS_PER_READ = 500;

/** Writes and reads the assistant messages of batches (`batches` table, migration 0009). */
export function createSqliteBatchMessages(sqlite: SqliteDatabase) {
  const insert = sqlite.prepare(BATCH_SQL.insert);
  const byIds = sqlite.prepare<
    { ids: string },
    { id: string; text: string | null; model: string | null; truncated: 0 | 1 }
  >(BATCH_SQL.byIds);
  return {
    save(batch: BatchMessage): void {
      insert.run(batchParams(batch));
    },
    read(batchIds: readonly string[]): Map<string, AssistantMessage> {
      const found = new Map<string, AssistantMessage>();
      const unique = [...new Set(batchIds)];
      for (let start = 0; start < unique.length; start += IDS_PER_READ) {
        const ids = JSON.stringify(unique.slice(start, start + IDS_PER_READ));
        for (const row of byIds.all({ ids })) {
          found.set(row.id, { text: row.text, model: row.model, truncated: row.truncated === 1 });
        }
      }
      return found;
    },
  };
}

/** The named parameters of `BATCH_SQL.insert`. */
export function batchParams(batch: BatchMessage) {
  return {
    batchId: batch.batchId,
    sessionId: batch.sessionId,
    createdAt: batch.createdAt,
    text: batch.message.text,
    model: batch.message.model,
    truncated: batch.message.truncated ? 1 : 0,
  };
}
