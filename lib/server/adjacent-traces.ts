import type { TraceStore } from '../db/trace-store';
import type { TraceRecord } from '../executor/types';

export interface AdjacentTraces {
  newer: string | null;
  older: string | null;
}

type WithAdjacent = { adjacent(id: string): AdjacentTraces };

const WINDOWS_MS = [1_000, 60_000, 3_600_000, 86_400_000, Number.POSITIVE_INFINITY];

/**
 * The calls recorded just before and after `trace` (newest-first order), for the trace page's
 * `[` and `]`. Uses the store's `adjacent` (one index read each way) where the store has it; else
 * reads the list around the call's time, widening the window until the neighbour shows.
 */
export function adjacentTraces(store: TraceStore, trace: Pick<TraceRecord, 'id' | 'createdAt'>): AdjacentTraces {
  if ('adjacent' in store && typeof (store as Partial<WithAdjacent>).adjacent === 'function') {
    return (store as TraceStore & WithAdjacent).adjacent(trace.id);
  }
  const older = (() => {
    const items = store.list({ to: trace.createdAt + 1, limit: 100 }).items;
    const index = items.findIndex((item) => item.id === trace.id);
    return index >= 0 ? (items[index + 1]?.id ?? null) : null;
  })();
  let newer: string | null = null;
  for (const width of WINDOWS_MS) {
    const to = Number.isFinite(width) ? trace.createdAt + width : undefined;
    const items = store.list({ from: trace.createdAt, ...(to === undefined ? {} : { to }), limit: 500 }).items;
    const index = items.findIndex((item) => item.id === trace.id);
    if (index > 0) {
      newer = items[index - 1]?.id ?? null;
      break;
    }
    if (index === -1 && items.length === 500) break; // too busy a window to find it this way
  }
  return { newer, older };
}
