import type { TraceStore } from '../db/trace-store';
import type { Recording } from '../executor/recording';
import { type Cassette, loadCassette } from './cassette';

/** Serving sessions whose cassette is kept between requests; the oldest is dropped past this. */
export const MAX_KEPT_CASSETTES = 64;

export interface RecordingRequest {
  /** The recorded session (`replay_from`). */
  replayFrom: string;
  /** What a miss does (`on_miss`). */
  onMiss: 'run' | 'fail';
  /** The session of the request's calls; null when the request names none. */
  sessionId: string | null;
}

// Per store (one per Toolscope instance), so two instances in one process (tests) never share.
const keptByStore = new WeakMap<TraceStore, Map<string, Cassette>>();

/**
 * Recording mode for one request of `POST /api/v1/tool-calls`: the `Recording` its calls are
 * served from; null when the recorded session has no call to serve (the API answers 400).
 * A request with a session keeps its cassette for the session's later requests, so the nth
 * identical call of the session gets the nth recording across requests. The kept cassette is
 * read again when the recorded session got a newer call (it was recorded again) or lost its
 * newest; a check of one indexed row per request.
 */
export function openRecording(store: TraceStore, request: RecordingRequest): Recording | null {
  const cassette = cassetteFor(store, request);
  if (!cassette) return null;
  return { sessionId: request.replayFrom, onMiss: request.onMiss, take: cassette.take };
}

function cassetteFor(store: TraceStore, { replayFrom, sessionId }: RecordingRequest): Cassette | null {
  if (sessionId === null) return loadCassette(store, replayFrom, null);
  let kept = keptByStore.get(store);
  if (!kept) {
    kept = new Map();
    keptByStore.set(store, kept);
  }
  const key = `${sessionId}\0${replayFrom}`;
  const cached = kept.get(key);
  const newest = store.list({ sessionId: replayFrom, limit: 1 }).items[0]?.id;
  if (cached && cached.newestCallId === newest) return cached;
  kept.delete(key);
  const cassette = loadCassette(store, replayFrom, sessionId);
  if (!cassette) return null;
  if (kept.size >= MAX_KEPT_CASSETTES) {
    const oldest = kept.keys().next().value;
    if (oldest !== undefined) kept.delete(oldest);
  }
  kept.set(key, cassette);
  return cassette;
}
