import type { TraceRecord } from '../executor/types';
import { setStoredForms } from './coded-columns';
import type { SqliteDatabase } from './open-database';
import { BATCH_SQL, batchParams } from './sqlite-batch-messages';
import type { FinishedCall } from './tool-series-batch';
import { storedIdForms } from './trace-id';
import { encodeTraceRecord } from './trace-row';
import type { BatchMessage, ImportOutcome, StoredTrace } from './trace-store';

/**
 * What an imported call stores as its sealed arguments: nothing. An empty blob is no sealed
 * value the vault could open, so `openSealedArguments` answers null and nothing can run it again.
 */
export const NO_SEALED_ARGUMENTS = Buffer.alloc(0);

/**
 * The record form of an imported trace, for `encodeTraceRecord`: its raw arguments are unknown
 * (empty); edited arguments are kept (redacted) when it had some.
 */
export function importedRecord(trace: StoredTrace): TraceRecord {
  const { sessionSeq: _seq, imported: _imported, ...record } = trace;
  return { ...record, rawArguments: '', rawEditedArguments: trace.editedArguments == null ? null : '' };
}

/**
 * Imports traces into SQLite in one transaction (see `TraceStore.importTraces`): every id is
 * checked first, so a conflict writes nothing. Finished calls are added to the tool series like
 * calls finishing here; the triggers keep the per-tool counts (and sessions) as for any insert.
 */
export function createSqliteImportTraces(
  sqlite: SqliteDatabase,
  /** `columns`: [stored column, SQL of its value] of a new row, as the store writes it (its `INSERTED`; values with `setStoredForms`). */
  options: { columns: readonly (readonly [string, string])[]; addToToolSeries: (calls: FinishedCall[]) => void },
) {
  const names = options.columns.map(([column]) => column);
  const values = options.columns.map(([, value]) => value);
  const insert = sqlite.prepare(
    `INSERT INTO tool_calls (${names.join(', ')}, imported) VALUES (${values.join(', ')}, 1)`,
  );
  const exists = sqlite.prepare('SELECT 1 FROM tool_calls WHERE id IN (@id, @idText)').pluck();
  const insertBatch = sqlite.prepare(BATCH_SQL.insert);
  return sqlite.transaction((traces: readonly StoredTrace[], messages: readonly BatchMessage[]): ImportOutcome => {
    for (const trace of traces) {
      if (exists.get(storedIdForms(trace.id)) !== undefined) return { ok: false, exists: trace.id };
    }
    const finished: FinishedCall[] = [];
    for (const trace of traces) {
      const values = encodeTraceRecord(importedRecord(trace), trace.sessionSeq ?? null);
      setStoredForms(values);
      insert.run({ ...values, sealedArguments: NO_SEALED_ARGUMENTS, sealedEditedArguments: null });
      if (values.finishedAt !== null) {
        finished.push({
          tool: values.tool,
          status: values.status,
          finishedAt: values.finishedAt,
          latencyMs: values.latencyMs,
        });
      }
    }
    options.addToToolSeries(finished);
    for (const message of messages) insertBatch.run(batchParams(message));
    return { ok: true, imported: traces.length };
  });
}
