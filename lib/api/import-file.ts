import type { ImportOutcome, ImportWriter, TraceStore } from '../db/trace-store';
import { ApiError } from '../errors';
import type { Redactor } from '../executor/redact';
import { type ImportAnswer, type ImportRefusal, readExportFile } from './export-import';
import { type ImportLane, importLane, inImportLane } from './import-lane';
import { createPacer, isJsonSyntaxError, type Pacer, parseJsonInTurns } from './json-in-turns';

/**
 * `POST /api/v1/import`'s work, a piece at a time so that a file of tens of megabytes never
 * holds the event loop (a 20 MB file held it 4–8 s, every other request waiting):
 * 1. decode the bytes and parse the JSON in pieces (`parseJsonInTurns`);
 * 2. check and redact each trace apart (`readExportFile`);
 * 3. choose the import's lane (`importLane`) and write it a chunk at a time, each chunk a short
 *    transaction (`ImportWriter`), kept only once the last is written.
 * One import of a store at a time (`inImportLane`).
 */

/** How an import reads, checks and writes a file: the server's redactor, and when to yield. */
export interface ImportContext {
  store: TraceStore;
  redactor: Redactor;
  /** Yields to the event loop between pieces of work; `createPacer()` unless a test paces it. */
  pacer?: Pacer;
}

/** How long one transaction writes calls (one at least); the event loop runs between them. */
export const IMPORT_CHUNK_MS = 8;
/** Ids looked up per turn before writing (a file imported before is refused before it writes anything). */
const ID_CHECKS_PER_TURN = 500;
/** Rows taken out (a refused import) or bookkeeping rows dropped (a completed one) per transaction. */
const CLEANUP_ROWS = 1_000;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Writes an import's lane a chunk at a time (see `ImportWriter`), the event loop free between
 * chunks: all of it, or, when a trace id is already stored, none of it (what was written is
 * taken out again). A store without `beginImport` writes it in one transaction.
 */
async function writeImport(lane: ImportLane, context: ImportContext, pacer: Pacer): Promise<ImportOutcome> {
  const writer = context.store.beginImport?.();
  if (!writer) return context.store.importTraces(lane.traces, lane.messages);
  let committed = false;
  try {
    const ids = lane.traces.map((trace) => trace.id);
    for (let from = 0; from < ids.length; from += ID_CHECKS_PER_TURN) {
      const stored = writer.firstStored(ids.slice(from, from + ID_CHECKS_PER_TURN));
      if (stored !== null) return { ok: false, exists: stored };
      await pacer.pace();
    }
    for (let from = 0; from < lane.traces.length; ) {
      const step = writer.write(lane.traces, from, IMPORT_CHUNK_MS);
      if (!step.ok) return step;
      from += step.written;
      await nextTurn();
    }
    for (let from = 0; from < lane.messages.length; ) {
      from += writer.writeMessages(lane.messages, from, IMPORT_CHUNK_MS);
      await nextTurn();
    }
    writer.commit();
    committed = true;
    while (!writer.tidy(CLEANUP_ROWS)) await nextTurn();
    return { ok: true, imported: lane.traces.length };
  } finally {
    if (!committed) await discardImport(writer);
  }
}

/** Takes out what an import wrote, a chunk at a time; when that fails too (the store closed), the next start does. */
async function discardImport(writer: ImportWriter): Promise<void> {
  try {
    while (!writer.discard(CLEANUP_ROWS)) await nextTurn();
  } catch (error) {
    console.error('[toolscope] could not take out an unfinished import; the next start will:', error);
  }
}

/**
 * Imports a parsed export file into the store, all or nothing: the traces are stored read-only
 * and marked imported (no sealed arguments: nothing can run them again), with their batches'
 * messages, in a lane of their own (see `importLane`: no link to a trace outside the file, and a
 * session of their own when the file's session id is taken here). A refusal (bad file, other
 * version, a trace id already stored) writes nothing. Checked, redacted and written a piece at a
 * time; run it in the store's import lane (`inImportLane`, as `importExportBytes` does).
 */
export async function importExportFile(
  body: unknown,
  context: ImportContext,
): Promise<{ ok: true; answer: ImportAnswer } | { ok: false; refusal: ImportRefusal }> {
  const pacer = context.pacer ?? createPacer();
  const read = await readExportFile(body, context.redactor, pacer);
  if (!read.ok) return read;
  const lane = importLane(read.traces, read.messages, context.store);
  const outcome = await writeImport(lane, context, pacer);
  if (!outcome.ok) {
    return {
      ok: false,
      refusal: {
        status: 409,
        code: 'ALREADY_EXISTS',
        message: `The trace ${outcome.exists} is already stored here (imported before?); nothing was imported.`,
        details: { trace_id: outcome.exists },
      },
    };
  }
  const fileSession = read.file.session_id;
  return {
    ok: true,
    answer: {
      kind: read.file.kind,
      session_id: fileSession === null ? null : (lane.renamed.get(fileSession) ?? fileSession),
      renamed_from: fileSession !== null && lane.renamed.has(fileSession) ? fileSession : null,
      trace_ids: read.traces.map((trace) => trace.id),
      imported: outcome.imported,
    },
  };
}

/** Bytes decoded per turn of the event loop. */
const DECODE_CHUNK_BYTES = 1024 * 1024;

/** `bytes` as UTF-8 text (a byte order mark kept, bad bytes U+FFFD, as `Buffer#toString`), a megabyte a turn. */
async function decodeInTurns(bytes: Uint8Array, pacer: Pacer): Promise<string> {
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  let text = '';
  for (let from = 0; from < bytes.length; from += DECODE_CHUNK_BYTES) {
    text += decoder.decode(bytes.subarray(from, from + DECODE_CHUNK_BYTES), { stream: true });
    await pacer.pace();
  }
  return text + decoder.decode();
}

/**
 * `POST /api/v1/import`'s work on the bytes of a file: decoded and parsed a piece at a time
 * (`parseJsonInTurns`), then `importExportFile`; the whole in the store's import lane, one
 * import at a time (see `inImportLane`). A file that is not JSON is a 400 INVALID_JSON.
 */
export function importExportBytes(
  bytes: Uint8Array,
  context: ImportContext,
): Promise<{ ok: true; answer: ImportAnswer } | { ok: false; refusal: ImportRefusal }> {
  return inImportLane(context.store, async () => {
    const pacer = context.pacer ?? createPacer();
    const text = await decodeInTurns(bytes, pacer);
    let body: unknown;
    try {
      body = await parseJsonInTurns(text, { pacer });
    } catch (error) {
      if (isJsonSyntaxError(error)) throw new ApiError('INVALID_JSON', `The file is not valid JSON: ${error.message}`);
      throw error;
    }
    return importExportFile(body, { ...context, pacer });
  });
}
