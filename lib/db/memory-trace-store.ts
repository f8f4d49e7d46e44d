import type { TraceRecord } from '../executor/types';
import { encodeCursor } from './cursor';
import {
  argumentsPreview,
  cheapTotal,
  containsIgnoringAsciiCase,
  DEFAULT_SCAN_WINDOW,
  idMatches,
  type ListFilter,
  resolveListFilter,
  scanFloor,
  searchedHead,
  startsWithIgnoringAsciiCase,
} from './list-query';
import { aggregateSessions, listMemorySessions, type MemoryCall, memorySessionCalls } from './memory-sessions';
import { percentile } from './percentile';
import { createMemoryPrincipalDirectory } from './principal-directory';
import { createSessionSequence } from './session-sequence';
import { importedRecord } from './sqlite-import-traces';
import { decodeTraceId } from './trace-id';
import { decodeStoredTrace, decodeTraceSummary, encodeTraceRecord, type TraceRowValues } from './trace-row';
import {
  type AssistantMessage,
  type BatchMessage,
  INTERRUPTED_ERROR,
  type TraceStore,
  UNFINISHED_STATUSES,
} from './trace-store';

interface MemoryRow {
  seq: number;
  id: string;
  /** The record as written, copied one level deep (the executor never mutates deeper). */
  snapshot: TraceRecord | null;
  /** Its encoded form, made on first read: writes stay cheap, reads see what SQLite would return. */
  encoded: TraceRowValues | null;
  rawArguments: string;
  rawEditedArguments: string | null;
  /** Its place in its session, given when the row was first written. */
  sessionSeq: number | null;
  /** From an imported file: no raw arguments, never interrupted. */
  imported?: true;
}

/**
 * The trace store in memory, for tests and benchmarks; with `capacity`, only the newest calls
 * are kept (a long benchmark then measures the executor, not a growing heap). It keeps rows in the same encoded form
 * as the SQLite store (JSON text, 0/1 flags), so the two round-trip records identically and
 * pass the same test suite; raw arguments are kept as they are, since nothing reaches a disk.
 * @example const store = createMemoryTraceStore(); store.begin(record); store.get(record.id)
 */
export function createMemoryTraceStore(options: { capacity?: number; scanWindow?: number } = {}): TraceStore {
  const scanWindow = options.scanWindow ?? DEFAULT_SCAN_WINDOW;
  const capacity = Math.max(1, options.capacity ?? Number.POSITIVE_INFINITY);
  const byId = new Map<string, MemoryRow>();
  // Insertion order: the row with seq n is at index n - 1 - dropped, so a cursor is an array index.
  let rows: MemoryRow[] = [];
  // Oldest rows evicted past `capacity`, in batches of a tenth so eviction costs O(1) a call.
  let dropped = 0;
  const evictAt = capacity + Math.max(1, Math.floor(capacity / 10));
  // Calls per tool among the rows kept: the twin of SQLite's trigger-kept tool_counts.
  const callsByTool = new Map<string, number>();
  const count = (tool: string, delta: number) => {
    const calls = (callsByTool.get(tool) ?? 0) + delta;
    if (calls > 0) callsByTool.set(tool, calls);
    else callsByTool.delete(tool);
  };

  // A deleted row stays in `rows` as a gap (seq is never reused, as in SQLite), out of `byId`.
  const isLive = (row: MemoryRow | undefined): row is MemoryRow => row !== undefined && byId.get(row.id) === row;
  // As SQLite's MAX(session_seq): the rows still kept (deleted and evicted ones are gone from both).
  const sessionSeq = createSessionSequence({
    storedMax(sessionId) {
      let max = 0;
      for (const row of byId.values()) {
        if (row.sessionSeq !== null && row.sessionSeq > max && sessionIdOf(row) === sessionId) max = row.sessionSeq;
      }
      return max;
    },
  });

  // The batches table's twin; a batch's message goes with its last call, as SQLite's triggers do.
  const batches = new Map<string, BatchMessage>();

  function* liveCalls(): Generator<MemoryCall> {
    for (const row of rows)
      if (isLive(row)) yield { seq: row.seq, values: valuesOf(row), imported: row.imported === true };
  }

  function remove(row: MemoryRow): void {
    byId.delete(row.id);
    count(toolOf(row), -1);
    const batchId = batchIdOf(row);
    if (batchId === null || !batches.has(batchId)) return;
    for (const other of byId.values()) if (batchIdOf(other) === batchId) return;
    batches.delete(batchId);
  }

  function evict(): void {
    const excess = rows.length - capacity;
    for (let index = 0; index < excess; index++) {
      const row = rows[index] as MemoryRow;
      if (isLive(row)) remove(row);
    }
    rows = rows.slice(excess);
    dropped += excess;
  }

  function upsert(record: TraceRecord): void {
    const snapshot = copyRecord(record);
    const existing = byId.get(record.id);
    if (existing) {
      // As in SQLite: an interrupted call stays interrupted (see TRACE_WRITE_SQL).
      const current = existing.snapshot ?? (existing.encoded as TraceRowValues);
      if (current.status === 'interrupted') return;
      if (current.tool !== record.tool) {
        count(current.tool, -1);
        count(record.tool, 1);
      }
      existing.snapshot = snapshot;
      existing.encoded = null;
      existing.rawArguments = record.rawArguments;
      existing.rawEditedArguments = record.rawEditedArguments;
      return;
    }
    const row: MemoryRow = {
      seq: dropped + rows.length + 1,
      id: record.id,
      snapshot,
      encoded: null,
      rawArguments: record.rawArguments,
      rawEditedArguments: record.rawEditedArguments,
      sessionSeq: sessionSeq.of(record.id, record.sessionId),
    };
    sessionSeq.done(record.id);
    rows.push(row);
    byId.set(record.id, row);
    count(record.tool, 1);
    if (rows.length >= evictAt) evict();
  }

  return {
    begin: upsert,
    update: upsert,
    finish: upsert,

    get(id) {
      const row = byId.get(id);
      return row ? decodeStoredTrace({ ...valuesOf(row), imported: row.imported ? 1 : 0 }, principals.byRef) : null;
    },
    openSealedArguments(id) {
      const row = byId.get(id);
      if (!row || row.imported) return null;
      return { rawArguments: row.rawArguments, rawEditedArguments: row.rawEditedArguments };
    },

    saveAssistantMessage(batch) {
      if (!batches.has(batch.batchId)) batches.set(batch.batchId, { ...batch, message: { ...batch.message } });
    },
    assistantMessages(batchIds) {
      const found = new Map<string, AssistantMessage>();
      for (const id of batchIds) {
        const batch = batches.get(id);
        if (batch) found.set(id, { ...batch.message });
      }
      return found;
    },
    importTraces(traces, messages) {
      for (const trace of traces) if (byId.has(trace.id)) return { ok: false, exists: trace.id };
      for (const trace of traces) {
        const row: MemoryRow = {
          seq: dropped + rows.length + 1,
          id: trace.id,
          snapshot: null,
          encoded: encodeTraceRecord(importedRecord(trace), trace.sessionSeq ?? null),
          rawArguments: '',
          rawEditedArguments: null,
          sessionSeq: trace.sessionSeq ?? null,
          imported: true,
        };
        rows.push(row);
        byId.set(row.id, row);
        count(trace.tool, 1);
      }
      for (const trace of traces) if (trace.sessionId !== null) sessionSeq.forget(trace.sessionId);
      for (const message of messages) this.saveAssistantMessage(message);
      if (rows.length >= evictAt) evict();
      return { ok: true, imported: traces.length };
    },

    list(query) {
      const filter = resolveListFilter(query);
      const matches: MemoryRow[] = [];
      const start = Math.min(rows.length - 1, (filter.beforeSeq ?? Number.POSITIVE_INFINITY) - 2 - dropped);
      const floorSeq = scanFloor(filter, dropped + rows.length, scanWindow);
      const end = floorSeq === undefined ? 0 : Math.max(0, floorSeq - 1 - dropped);
      for (let index = start; index >= end && matches.length <= filter.limit; index--) {
        const row = rows[index];
        if (isLive(row) && matchesFilter(valuesOf(row), filter)) matches.push(row);
      }
      const page = matches.slice(0, filter.limit);
      const items = page.map((row) => summaryOf(valuesOf(row), row.imported === true));
      const last = page.at(-1);
      const kind = cheapTotal(filter);
      const total = kind === 'all' ? byId.size : kind === 'tool' ? (callsByTool.get(filter.tool ?? '') ?? 0) : null;
      if (matches.length > filter.limit && last) {
        return { items, nextCursor: encodeCursor(last.seq), partial: false, total };
      }
      const partial = floorSeq !== undefined && floorSeq > dropped + 1;
      return { items, nextCursor: partial && floorSeq ? encodeCursor(floorSeq) : null, partial, total };
    },

    toolStats(window = 1000) {
      const size = Math.max(1, Math.floor(window));
      const byTool = new Map<string, { calls: number; failures: number; last: MemoryRow; latencies: number[] }>();
      for (let index = rows.length - 1; index >= 0; index--) {
        const row = rows[index];
        if (!isLive(row)) continue;
        const { tool, status, latencyMs } = valuesOf(row);
        let stats = byTool.get(tool);
        if (!stats) {
          stats = { calls: 0, failures: 0, last: row, latencies: [] };
          byTool.set(tool, stats);
        }
        stats.calls++;
        if (status === 'failed') stats.failures++;
        if (latencyMs !== null && stats.latencies.length < size) stats.latencies.push(latencyMs);
      }
      return [...byTool.entries()]
        .sort(([a], [b]) => compareText(a, b))
        .map(([tool, stats]) => {
          const latencies = stats.latencies.sort((a, b) => a - b);
          return {
            tool,
            calls: stats.calls,
            failures: stats.failures,
            p50LatencyMs: percentile(latencies, 50),
            p95LatencyMs: percentile(latencies, 95),
            lastCalledAt: valuesOf(stats.last).createdAt,
          };
        });
    },

    tools() {
      return [...callsByTool.keys()].sort(compareText);
    },

    replays(id) {
      const found: string[] = [];
      for (const row of rows) {
        if (!isLive(row)) continue;
        const replayOf = row.snapshot ? row.snapshot.replayOf : (row.encoded as TraceRowValues).replayOf;
        if (replayOf === id) found.push(row.id);
      }
      return found;
    },
    adjacent(id) {
      const row = byId.get(id);
      if (!row) return { newer: null, older: null };
      const index = row.seq - 1 - dropped;
      let newer: string | null = null;
      let older: string | null = null;
      for (let i = index + 1; i < rows.length && newer === null; i++) if (isLive(rows[i])) newer = rows[i]?.id ?? null;
      for (let i = index - 1; i >= 0 && older === null; i--) if (isLive(rows[i])) older = rows[i]?.id ?? null;
      return { newer, older };
    },

    listSessions(query) {
      return listMemorySessions(liveCalls(), query);
    },
    getSession(id) {
      return aggregateSessions(liveCalls()).find((session) => session.id === id) ?? null;
    },
    sessionCalls(id, limit) {
      return memorySessionCalls(liveCalls(), id, limit, principals.byRef);
    },

    delete(id) {
      const row = byId.get(id);
      if (!row) return 'not_found';
      if (isUnfinished(row)) return 'running';
      remove(row);
      return 'deleted';
    },

    deleteSession(sessionId) {
      let deleted = 0;
      let skippedRunning = 0;
      for (const row of rows) {
        if (!isLive(row) || valuesOf(row).sessionId !== sessionId) continue;
        if (isUnfinished(row)) skippedRunning++;
        else {
          remove(row);
          deleted++;
        }
      }
      return { deleted, skippedRunning };
    },

    prune({ createdBefore, keepNewest, limit }) {
      const max = Math.max(0, Math.floor(limit));
      const finished = () => rows.filter((row) => isLive(row) && !isUnfinished(row));
      let deleted = 0;
      if (createdBefore !== undefined) {
        // Oldest first by created_at, then seq: the order of SQLite's created_at index.
        const expired = finished()
          .filter((row) => !row.imported && valuesOf(row).createdAt < createdBefore)
          .sort((a, b) => valuesOf(a).createdAt - valuesOf(b).createdAt || a.seq - b.seq);
        for (const row of expired.slice(0, max)) remove(row);
        deleted += Math.min(max, expired.length);
      }
      if (keepNewest !== undefined && deleted < max) {
        const over = byId.size - Math.max(0, Math.floor(keepNewest));
        const victims = over > 0 ? finished().slice(0, Math.min(over, max - deleted)) : [];
        for (const row of victims) remove(row);
        deleted += victims.length;
      }
      return deleted;
    },

    markInterrupted(now) {
      let count = 0;
      for (const row of rows) {
        if (!isLive(row)) continue;
        const values = valuesOf(row);
        if (values.status !== 'running' || row.imported) continue;
        row.snapshot = null;
        row.encoded = {
          ...values,
          status: 'interrupted',
          finishedAt: now,
          error: JSON.stringify(INTERRUPTED_ERROR),
          errorCode: INTERRUPTED_ERROR.code,
        };
        count++;
      }
      return count;
    },

    flush() {},
    tryFlush() {},
    // Nothing is queued and nothing can fail to be written.
    health: () => ({ status: 'ok', queued: 0, lastError: null, diskFreeBytes: null }),
    admit() {},

    close() {
      sessionSeq.clear();
      batches.clear();
      byId.clear();
      callsByTool.clear();
      rows = [];
    },
  };
}

/** The principals of every memory store of the process, numbered as first seen. */
const principals = createMemoryPrincipalDirectory();

function valuesOf(row: MemoryRow): TraceRowValues {
  if (!row.encoded) {
    const record = row.snapshot as TraceRecord;
    row.encoded = encodeTraceRecord(
      record,
      row.sessionSeq,
      record.principal ? principals.refOf(record.principal) : null,
    );
    row.snapshot = null;
  }
  return row.encoded;
}

function summaryOf(values: TraceRowValues, imported: boolean) {
  return decodeTraceSummary(
    { ...values, imported: imported ? 1 : 0, argumentsPreview: argumentsPreview(values.arguments) },
    principals.byRef,
  );
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function isUnfinished(row: MemoryRow): boolean {
  // An imported call is never written to again, whatever its status: it goes like a finished one.
  return !row.imported && (UNFINISHED_STATUSES as readonly string[]).includes(statusOf(row));
}

function statusOf(row: MemoryRow): string {
  return (row.snapshot ?? (row.encoded as TraceRowValues)).status;
}

function sessionIdOf(row: MemoryRow): string | null {
  return (row.snapshot ?? (row.encoded as TraceRowValues)).sessionId;
}

function batchIdOf(row: MemoryRow): string | null {
  return (row.snapshot ?? (row.encoded as TraceRowValues)).batchId;
}

function toolOf(row: MemoryRow): string {
  return (row.snapshot ?? (row.encoded as TraceRowValues)).tool;
}

function copyRecord(record: TraceRecord): TraceRecord {
  return {
    ...record,
    stages: record.stages.slice(),
    attempts: record.attempts.slice(),
    flags: { ...record.flags },
    metadata: { ...record.metadata },
  };
}

function matchesFilter(values: TraceRowValues, filter: ListFilter): boolean {
  if (filter.tool !== undefined && values.tool !== filter.tool) return false;
  if (filter.status !== undefined && values.status !== filter.status) return false;
  if (filter.sessionId !== undefined && values.sessionId !== filter.sessionId) return false;
  if (filter.from !== undefined && values.createdAt < filter.from) return false;
  if (filter.to !== undefined && values.createdAt >= filter.to) return false;
  if (filter.faulted !== undefined && values.faulted !== (filter.faulted ? 1 : 0)) return false;
  if (filter.principalId !== undefined && values.principalRef !== principals.refOfId(filter.principalId)) return false;
  if (filter.text !== undefined && !matchesText(values, filter.text)) return false;
  return true;
}

/** The in-memory twin of the SQLite TEXT_SEARCH: the same columns, the same rules. */
function matchesText(values: TraceRowValues, text: string): boolean {
  const contains = (column: string | null) => column !== null && containsIgnoringAsciiCase(searchedHead(column), text);
  return (
    idMatches(values.toolCallId, text) ||
    idMatches(decodeTraceId(values.id), text) ||
    contains(values.error) ||
    (values.sessionId !== null && startsWithIgnoringAsciiCase(values.sessionId, text)) ||
    contains(values.arguments) ||
    contains(values.output) ||
    contains(values.stdout) ||
    contains(values.stderr)
  );
}
