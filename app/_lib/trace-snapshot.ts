import 'server-only';
import { assistantMessageOf } from '@/lib/api/assistant-message';
import { traceJson } from '@/lib/api/serialize';
import { getToolscope } from '@/lib/server/toolscope';
import type { TraceJson } from '@/lib/ui/trace-from-json';

/** A running call's live snapshot from the executor, else the recorded trace; null when unknown. */
export function loadTrace(id: string) {
  if (id.length > 256) return null;
  const { executor, store } = getToolscope();
  return executor.inFlight(id) ?? store.get(id);
}

/**
 * The trace as `GET /api/v1/traces/:id` answers it (redacted: the sealed raw arguments never reach
 * a page), with its replays and the server's clock; null when unknown.
 */
export function traceSnapshot(id: string): TraceJson | null {
  const trace = loadTrace(id);
  if (!trace) return null;
  return {
    ...traceJson(trace),
    assistant_message: assistantMessageOf(trace, getToolscope().store),
    replays: getToolscope().store.replays(trace.id),
    server_time: new Date().toISOString(),
  };
}
