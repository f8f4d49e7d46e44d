import type { Statement } from 'better-sqlite3';
import type { TraceRecord } from '../executor/types';
import { setStoredForms } from './coded-columns';
import type { SqliteDatabase } from './open-database';
import { BATCH_SQL, batchParams } from './sqlite-batch-messages';
import type { FinishedCall } from './tool-series-batch';
import { storedIdForms } from './trace-id';
import { encodeTraceRecord } from './trace-row';
import type { BatchMessage, ImportOutcome, ImportStep, ImportWriter, StoredTrace } from './trace-store';

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

/** The statements of the import journal (migration 0017); exported for the tests. */
export const IMPORT_JOURNAL_SQL = {
  start: 'INSERT INTO imports (started_at) VALUES (?)',
  noteCall: 'INSERT INTO import_rows (import_id, call_seq) VALUES (?, ?)',
  noteBatch: 'INSERT INTO import_rows (import_id, batch_id) VALUES (?, ?)',
  complete: 'DELETE FROM imports WHERE id = ?',
  written: 'SELECT rowid, call_seq AS callSeq, batch_id AS batchId FROM import_rows WHERE import_id = ? LIMIT ?',
  // An imported call only: a journal row never takes out a call made here.
  takeOutCall: 'DELETE FROM tool_calls WHERE seq = ? AND imported = 1',
  takeOutBatch: 'DELETE FROM batches WHERE id = ?',
  dropNote: 'DELETE FROM import_rows WHERE rowid = ?',
  tidy: 'DELETE FROM import_rows WHERE rowid IN (SELECT rowid FROM import_rows WHERE import_id = ? LIMIT ?)',
  unfinishedCalls: `DELETE FROM tool_calls WHERE imported = 1 AND seq IN
    (SELECT call_seq FROM import_rows WHERE import_id IN (SELECT id FROM imports) AND call_seq IS NOT NULL)`,
  unfinishedBatches: `DELETE FROM batches WHERE id IN
    (SELECT batch_id FROM import_rows WHERE import_id IN (SELECT id FROM imports) AND batch_id IS NOT NULL)`,
  forgetAll: 'DELETE FROM import_rows',
  forgetImports: 'DELETE FROM imports',
} as const;

/** Thrown inside a chunk's transaction to roll it back: a trace of the chunk is stored already. */
class StoredAlready extends Error {
  constructor(readonly id: string) {
    super(`The trace ${id} is stored already.`);
  }
}

/**
 * The store's imports (see `TraceStore.importTraces` and `TraceStore.beginImport`). Finished
 * calls are added to the tool series like calls finishing here, in the transaction that writes
 * them (the delete trigger takes them out again with the rows); the triggers keep the per-tool
 * counts, the sessions and the search index as for any insert.
 *
 * `begin` journals what each chunk writes (`imports` and `import_rows`, migration 0017) in that
 * chunk's transaction: an import that never completes (given up, or the process stopped) is
 * taken out by `discard`, or at start by `discardUnfinished`, never left half written.
 */
export function createSqliteImportTraces(
  sqlite: SqliteDatabase,
  options: {
    /** [stored column, SQL of its value] of a new row, as the store writes it (its `INSERTED`; values with `setStoredForms`). */
    columns: readonly (readonly [string, string])[];
    addToToolSeries: (calls: FinishedCall[]) => void;
    /** Told after a chunk committed, with the newest seq it wrote (the search indexer's hint). */
    afterWrite?: (newestSeq: number) => void;
    /** Told when an import completed, with the sessions it wrote (their numbering goes on after its calls). */
    afterCommit?: (sessionIds: ReadonlySet<string>) => void;
  },
) {
  const names = options.columns.map(([column]) => column);
  const values = options.columns.map(([, value]) => value);
  const insert = sqlite.prepare(
    `INSERT INTO tool_calls (${names.join(', ')}, imported) VALUES (${values.join(', ')}, 1)`,
  );
  const exists = sqlite.prepare('SELECT 1 FROM tool_calls WHERE id IN (@id, @idText)').pluck();
  const insertBatch = sqlite.prepare(BATCH_SQL.insert);
  const journal = Object.fromEntries(
    Object.entries(IMPORT_JOURNAL_SQL).map(([name, sql]) => [name, sqlite.prepare<unknown[]>(sql)]),
  ) as Record<keyof typeof IMPORT_JOURNAL_SQL, Statement<unknown[]>>;

  const isStored = (id: string) => exists.get(storedIdForms(id)) !== undefined;

  /** Inserts one imported trace; its seq, and the call for the tool series when it finished. */
  function insertOne(trace: StoredTrace): { seq: number; finished: FinishedCall | null } {
    const row = encodeTraceRecord(importedRecord(trace), trace.sessionSeq ?? null);
    setStoredForms(row);
    const seq = Number(
      insert.run({ ...row, sealedArguments: NO_SEALED_ARGUMENTS, sealedEditedArguments: null }).lastInsertRowid,
    );
    const finished =
      row.finishedAt === null
        ? null
        : { tool: row.tool, status: row.status, finishedAt: row.finishedAt, latencyMs: row.latencyMs };
    return { seq, finished };
  }

  /** Every id is checked first, so a conflict writes nothing. */
  const importAll = sqlite.transaction(
    (traces: readonly StoredTrace[], messages: readonly BatchMessage[]): ImportOutcome => {
      for (const trace of traces) if (isStored(trace.id)) return { ok: false, exists: trace.id };
      const finished: FinishedCall[] = [];
      for (const trace of traces) {
        const call = insertOne(trace).finished;
        if (call) finished.push(call);
      }
      options.addToToolSeries(finished);
      for (const message of messages) insertBatch.run(batchParams(message));
      return { ok: true, imported: traces.length };
    },
  );

  const writeChunk = sqlite.transaction(
    (importId: number, traces: readonly StoredTrace[], from: number, budgetMs: number) => {
      const started = performance.now();
      const finished: FinishedCall[] = [];
      const sessions: string[] = [];
      let at = from;
      let newest = 0;
      while (at < traces.length && (at === from || performance.now() - started < budgetMs)) {
        const trace = traces[at] as StoredTrace;
        if (isStored(trace.id)) throw new StoredAlready(trace.id);
        const { seq, finished: call } = insertOne(trace);
        journal.noteCall.run(importId, seq);
        if (call) finished.push(call);
        if (trace.sessionId !== null) sessions.push(trace.sessionId);
        newest = seq;
        at++;
      }
      options.addToToolSeries(finished);
      return { written: at - from, newest, sessions };
    },
  );

  const writeMessagesChunk = sqlite.transaction(
    (importId: number, messages: readonly BatchMessage[], from: number, budgetMs: number): number => {
      const started = performance.now();
      let at = from;
      while (at < messages.length && (at === from || performance.now() - started < budgetMs)) {
        const message = messages[at] as BatchMessage;
        if (insertBatch.run(batchParams(message)).changes === 1) journal.noteBatch.run(importId, message.batchId);
        at++;
      }
      return at - from;
    },
  );

  const discardChunk = sqlite.transaction((importId: number, limit: number): boolean => {
    const rows = journal.written.all(importId, limit) as {
      rowid: number;
      callSeq: number | null;
      batchId: string | null;
    }[];
    for (const row of rows) {
      if (row.callSeq !== null) journal.takeOutCall.run(row.callSeq);
      else if (row.batchId !== null) journal.takeOutBatch.run(row.batchId);
      journal.dropNote.run(row.rowid);
    }
    if (rows.length < limit) journal.complete.run(importId);
    return rows.length < limit;
  });

  /** Starts an import (see `ImportWriter`): its row in `imports` is written at once. */
  function begin(): ImportWriter {
    const importId = Number(journal.start.run(Date.now()).lastInsertRowid);
    const sessions = new Set<string>();
    let state: 'writing' | 'committed' | 'discarded' = 'writing';
    const writing = (what: string) => {
      if (state !== 'writing') throw new Error(`The import was ${state}: it cannot ${what}.`);
    };
    return {
      firstStored(ids) {
        for (const id of ids) if (isStored(id)) return id;
        return null;
      },
      write(traces, from, budgetMs): ImportStep {
        writing('write');
        let chunk: ReturnType<typeof writeChunk>;
        try {
          chunk = writeChunk(importId, traces, from, budgetMs);
        } catch (error) {
          if (error instanceof StoredAlready) return { ok: false, exists: error.id };
          throw error;
        }
        for (const sessionId of chunk.sessions) sessions.add(sessionId);
        if (chunk.newest > 0) options.afterWrite?.(chunk.newest);
        return { ok: true, written: chunk.written };
      },
      writeMessages(messages, from, budgetMs) {
        writing('write');
        return writeMessagesChunk(importId, messages, from, budgetMs);
      },
      commit() {
        writing('commit');
        journal.complete.run(importId);
        state = 'committed';
        options.afterCommit?.(sessions);
      },
      tidy(limit) {
        if (state !== 'committed') throw new Error('Only a committed import is tidied.');
        return journal.tidy.run(importId, limit).changes < limit;
      },
      discard(limit) {
        if (state === 'committed') throw new Error('The import was committed: it cannot be discarded.');
        state = 'discarded';
        return discardChunk(importId, limit);
      },
    };
  }

  /**
   * Takes out the calls and messages of every import left unfinished (a process stopped before
   * it completed), and the bookkeeping of all imports; how many calls it took out. For the start
   * of the process that owns the database (`markInterrupted`): an import running elsewhere on it
   * would be taken out too.
   */
  const discardUnfinished = sqlite.transaction((): number => {
    const calls = journal.unfinishedCalls.run().changes;
    journal.unfinishedBatches.run();
    journal.forgetAll.run();
    journal.forgetImports.run();
    return calls;
  });

  return { importAll, begin, discardUnfinished };
}
