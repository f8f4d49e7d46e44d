import 'server-only';
import { findTrace, traceDetailJson } from '@/lib/api/trace-detail';
import { getToolscope } from '@/lib/server/toolscope';
import type { TraceJson } from '@/lib/ui/trace-from-json';

/** A running call's live snapshot from the executor, else the recorded trace; null when unknown. */
export function loadTrace(id: string) {
  return findTrace(getToolscope(), id);
}

/** The trace as `GET /api/v1/traces/:id` answers it; null when unknown. */
export function traceSnapshot(id: string): TraceJson | null {
  const trace = loadTrace(id);
  return trace ? traceDetailJson(getToolscope(), trace) : null;
}
