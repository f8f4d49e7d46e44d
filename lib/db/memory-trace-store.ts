import type { TraceRecord } from '../executor/types';
import { encodeCursor } from './cursor';
import { containsIgnoringAsciiCase, type ListFilter, resolveListFilter } from './list-query';
import { percentile } from './percentile';
import { decodeTraceRecord, decodeTraceSummary, encodeTraceRecord, type TraceRowValues } from './trace-row';
import { INTERRUPTED_ERROR, type TraceStore } from './trace-store';

interface MemoryRow {
  seq: number;
  values: TraceRowValues;
  rawArguments: string;
}

/**
 * The trace store in memory, for tests and benchmarks. It keeps rows in the same encoded form
 * as the SQLite store (JSON text, 0/1 flags), so the two round-trip records identically and
 * pass the same test suite; raw arguments are kept as they are, since nothing reaches a disk.
 * @example const store = createMemoryTraceStore(); store.begin(record); store.get(record.id)
 */
export function createMemoryTraceStore(): TraceStore {
  const byId = new Map<string, MemoryRow>();
  // Insertion order: the row with seq n is at index n - 1, so a cursor is an array index.
  const rows: MemoryRow[] = [];

  function upsert(record: TraceRecord): void {
    const values = encodeTraceRecord(record);
    const existing = byId.get(record.id);
    if (existing) {
      existing.values = values;
      existing.rawArguments = record.rawArguments;
      return;
    }
    const row: MemoryRow = { seq: rows.length + 1, values, rawArguments: record.rawArguments };
    rows.push(row);
    byId.set(record.id, row);
  }

  return {
    begin: upsert,
    update: upsert,
    finish: upsert,

    get(id) {
      const row = byId.get(id);
      return row ? decodeTraceRecord(row.values, row.rawArguments) : null;
    },

    list(query) {
      const filter = resolveListFilter(query);
      const matches: MemoryRow[] = [];
      const start = Math.min(rows.length, (filter.beforeSeq ?? rows.length + 1) - 1) - 1;
      for (let index = start; index >= 0 && matches.length <= filter.limit; index--) {
        const row = rows[index];
        if (row && matchesFilter(row.values, filter)) matches.push(row);
      }
      const page = matches.slice(0, filter.limit);
      const last = page.at(-1);
      return {
        items: page.map((row) => decodeTraceSummary(row.values)),
        nextCursor: matches.length > filter.limit && last ? encodeCursor(last.seq) : null,
      };
    },

    toolStats(window = 1000) {
      const size = Math.max(1, Math.floor(window));
      const byTool = new Map<string, { calls: number; failures: number; last: MemoryRow; latencies: number[] }>();
      for (let index = rows.length - 1; index >= 0; index--) {
        const row = rows[index];
        if (!row) continue;
        const { tool, status, latencyMs } = row.values;
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
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([tool, stats]) => {
          const latencies = stats.latencies.sort((a, b) => a - b);
          return {
            tool,
            calls: stats.calls,
            failures: stats.failures,
            p50LatencyMs: percentile(latencies, 50),
            p95LatencyMs: percentile(latencies, 95),
            lastCalledAt: stats.last.values.createdAt,
          };
        });
    },

    markInterrupted(now) {
      let count = 0;
      for (const row of rows) {
        if (row.values.status !== 'running') continue;
        row.values = {
          ...row.values,
          status: 'interrupted',
          finishedAt: now,
          error: JSON.stringify(INTERRUPTED_ERROR),
          errorCode: INTERRUPTED_ERROR.code,
        };
        count++;
      }
      return count;
    },

    close() {
      byId.clear();
      rows.length = 0;
    },
  };
}

function matchesFilter(values: TraceRowValues, filter: ListFilter): boolean {
  if (filter.tool !== undefined && values.tool !== filter.tool) return false;
  if (filter.status !== undefined && values.status !== filter.status) return false;
  if (filter.sessionId !== undefined && values.sessionId !== filter.sessionId) return false;
  if (filter.from !== undefined && values.createdAt < filter.from) return false;
  if (filter.to !== undefined && values.createdAt >= filter.to) return false;
  if (filter.text !== undefined) {
    const inId = containsIgnoringAsciiCase(values.toolCallId, filter.text);
    if (!inId && !(values.arguments !== null && containsIgnoringAsciiCase(values.arguments, filter.text))) return false;
  }
  return true;
}
