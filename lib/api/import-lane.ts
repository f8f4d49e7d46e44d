import { createHash, randomUUID } from 'node:crypto';
import type { BatchMessage, StoredTrace, TraceStore } from '../db/trace-store';
import { ApiError } from '../errors';

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
 * Reads the store's sessions (once each): call it in the store's import lane (`inImportLane`),
 * so that no other import comes between it and the writes. The traces and messages are the
 * import's own, read from its file: they are changed in place (a copy of every trace took tens
 * of milliseconds of the event loop for a file of thousands).
 */
export function importLane(
  traces: StoredTrace[],
  messages: BatchMessage[],
  store: Pick<TraceStore, 'getSession'>,
): ImportLane {
  const ids = new Set(traces.map((trace) => trace.id));
  const renamed = new Map<string, string>();
  const free = new Set<string>();
  for (const trace of traces) {
    const sessionId = trace.sessionId;
    if (sessionId === null || renamed.has(sessionId) || free.has(sessionId)) continue;
    if (store.getSession(sessionId) === null) {
      free.add(sessionId);
      continue;
    }
    let attempt = 0;
    let landed = withSuffix(sessionId, suffixOf(traces, attempt));
    while (store.getSession(landed) !== null) {
      landed = withSuffix(sessionId, ++attempt < 8 ? suffixOf(traces, attempt) : `@import-${randomUUID()}`);
    }
    renamed.set(sessionId, landed);
  }
  const sessionOf = (id: string | null) => (id === null ? null : (renamed.get(id) ?? id));
  for (const trace of traces) {
    trace.sessionId = sessionOf(trace.sessionId);
    if (trace.replayOf !== null && !ids.has(trace.replayOf)) trace.replayOf = null;
    if (trace.servedFrom !== null && !ids.has(trace.servedFrom)) trace.servedFrom = null;
  }
  for (const message of messages) message.sessionId = sessionOf(message.sessionId);
  return { traces, messages, renamed };
}

/** Imports waiting for the lane, at most (each holds its file in memory): past them, 429. */
export const MAX_WAITING_IMPORTS = 4;

/** Per store: the end of the last import queued, and how many wait. */
const lanes = new WeakMap<object, { tail: Promise<unknown>; waiting: number }>();

/**
 * Runs `work` (an import: read the file, choose its lane, write it a chunk at a time) after
 * every import of `store` queued before it: one import at a time, so that no other import comes
 * between the sessions an import reads and the calls it writes, and one file's worth of parsed
 * traces is held at a time. Past MAX_WAITING_IMPORTS waiting, a 429 TOO_MANY_REQUESTS.
 */
export function inImportLane<T>(store: object, work: () => Promise<T>): Promise<T> {
  let lane = lanes.get(store);
  if (!lane) {
    lane = { tail: Promise.resolve(), waiting: 0 };
    lanes.set(store, lane);
  }
  if (lane.waiting >= MAX_WAITING_IMPORTS) {
    return Promise.reject(
      new ApiError(
        'TOO_MANY_REQUESTS',
        `${lane.waiting} imports are waiting for the one being written; try again later.`,
      ),
    );
  }
  const own = lane;
  own.waiting++;
  const run = own.tail.then(() => {
    own.waiting--;
    return work();
  });
  own.tail = run.catch(() => {});
  return run;
}
