import { createHash, randomUUID } from 'node:crypto';
import type { BatchMessage, StoredTrace, TraceStore } from '../db/trace-store';

/** The longest session id the API reads (`/api/v1/sessions/:id` answers 404 past it). */
const MAX_SESSION_ID = 256;

/** An import's traces and batch messages as they will be stored, and where each session landed. */
export interface ImportLane {
  traces: StoredTrace[];
  messages: BatchMessage[];
  /** The sessions that were taken here, each with the id the import's calls got instead. */
  renamed: Map<string, string>;
}

/**
 * The suffix that sets an import's session apart: a short hash of its trace ids (so the same
 * file gives the same id), longer on each try in the rare case that one is taken too.
 */
function suffixOf(traces: readonly StoredTrace[], attempt: number): string {
  const hash = createHash('sha256');
  for (const trace of traces) hash.update(trace.id).update('\0');
  return `@import-${hash.digest('hex').slice(0, 8 + 4 * attempt)}`;
}

/** `id` with `suffix`, cut so that the whole stays within MAX_SESSION_ID characters (code points kept whole). */
function withSuffix(id: string, suffix: string): string {
  const room = MAX_SESSION_ID - suffix.length;
  if (id.length <= room) return `${id}${suffix}`;
  let cut = room;
  const code = id.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
  return `${id.slice(0, cut)}${suffix}`;
}

/**
 * Keeps an import in its own lane, as it is stored (`importExportFile`):
 * 1. Links stay within the import: a `replay_of` or `served_from` naming a trace that is not in
 *    the file is dropped (the trace here with that id, if any, is another call), so no imported
 *    trace points at a local one and no local trace lists an imported one among its replays.
 * 2. An import never joins a session that already has calls here — local ones, or another
 *    import's (session ids like `default` repeat across Toolscopes, and their `session_seq`
 *    numbers would collide): its calls go to a session of their own, `<id>@import-<hash>`, marked
 *    imported like any imported session, its batch messages with it.
 * Reads the store's sessions; call it in the same turn as `importTraces`, so no call comes between.
 */
export function importLane(
  traces: readonly StoredTrace[],
  messages: readonly BatchMessage[],
  store: Pick<TraceStore, 'getSession'>,
): ImportLane {
  const ids = new Set(traces.map((trace) => trace.id));
  const renamed = new Map<string, string>();
  for (const trace of traces) {
    const sessionId = trace.sessionId;
    if (sessionId === null || renamed.has(sessionId) || store.getSession(sessionId) === null) continue;
    let attempt = 0;
    let landed = withSuffix(sessionId, suffixOf(traces, attempt));
    while (store.getSession(landed) !== null) {
      landed = withSuffix(sessionId, ++attempt < 8 ? suffixOf(traces, attempt) : `@import-${randomUUID()}`);
    }
    renamed.set(sessionId, landed);
  }
  const sessionOf = (id: string | null) => (id === null ? null : (renamed.get(id) ?? id));
  return {
    traces: traces.map((trace) => ({
      ...trace,
      sessionId: sessionOf(trace.sessionId),
      replayOf: trace.replayOf !== null && ids.has(trace.replayOf) ? trace.replayOf : null,
      servedFrom: trace.servedFrom !== null && ids.has(trace.servedFrom) ? trace.servedFrom : null,
    })),
    messages: messages.map((message) => ({ ...message, sessionId: sessionOf(message.sessionId) })),
    renamed,
  };
}
