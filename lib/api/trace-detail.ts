import { assistantMessageOf } from '../calls/assistant-message';
import type { StoredTrace } from '../db/trace-store';
import { replaysInFlight } from '../replay/replays-in-flight';
import type { Toolscope } from '../server/create-toolscope';
import { callPreview } from '../tools/previews';
import { traceJson } from './serialize';

/**
 * A call by its trace id: a running call's live snapshot from the executor (with its place in its
 * session, which the store gave it), else the recorded trace; null when unknown.
 */
export function findTrace(ts: Pick<Toolscope, 'executor' | 'store'>, id: string): StoredTrace | null {
  if (id.length > 256) return null;
  const live = ts.executor.inFlight(id);
  if (!live) return ts.store.get(id);
  return live.sessionId === null ? live : { ...live, sessionSeq: ts.store.get(id)?.sessionSeq ?? null };
}

/**
 * The trace as `GET /api/v1/traces/:id` answers it and the trace page starts from: redacted (the
 * sealed raw arguments never leave the server), with the message its batch came with, its
 * replays (and those still running or awaiting approval, with their status), and the server's
 * clock so that clients can compute elapsed time.
 */
export function traceDetailJson(ts: Pick<Toolscope, 'store' | 'executor'>, trace: StoredTrace) {
  const replays = ts.store.replays(trace.id);
  return {
    ...traceJson(trace),
    assistant_message: assistantMessageOf(trace, ts.store),
    // The tool's reading of what ran (the edit, when a person edited the call): see `call-preview.ts`.
    preview: callPreview(ts.executor.registry.get(trace.tool)?.describe, trace.editedArguments ?? trace.arguments),
    replays,
    replays_in_flight: replaysInFlight(ts.executor, replays),
    server_time: new Date().toISOString(),
  };
}
