import type { Clock } from './clock';
import { STAGE_NAMES, type StageName, type StageStatus, type TraceStage } from './types';

export interface StageRecorder {
  /** The stages so far, in pipeline order; the trace record holds this same array. */
  readonly list: TraceStage[];
  /** The stage in progress (begun, not ended), if any. */
  readonly current: StageName | null;
  /** Records a stage that ran without waiting: it started at `start` (clock time) and ends now. */
  add(name: StageName, start: number, status: StageStatus, detail: string | null): void;
  /**
   * Starts a stage that may wait: it shows as `running` (or `waiting`) with duration 0 until
   * `end` replaces it with its final entry.
   */
  begin(name: StageName, status?: 'running' | 'waiting', detail?: string | null): void;
  /** Changes the status and detail shown for the stage in progress (e.g. waiting for approval). */
  mark(status: 'running' | 'waiting', detail: string | null): void;
  /** Ends the stage in progress. */
  end(status: 'ok' | 'failed', detail: string | null): void;
  /** Records every stage before `until` that has not run as skipped, so each trace has all six. */
  skipRest(until: StageName): void;
  /** Marks the last recorded stage failed after the fact (the trace could not be written). */
  failLast(detail: string): void;
}

/** Milliseconds rounded to the microsecond: the clock's real precision, and cheaper to store. */
export function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/**
 * Joins the parts of a stage detail with "; ", dropping a part's closing period so that a
 * sentence does not run into the next part as "…15000 ms.; 3 attempts".
 */
export function joinDetail(parts: readonly string[]): string {
  return parts.map((part) => (part.endsWith('.') && !part.endsWith('..') ? part.slice(0, -1) : part)).join('; ');
}

/**
 * Records the stages of one call. Entries are replaced, never mutated, so a snapshot that holds
 * an earlier entry keeps seeing what it saw. `listener` is told when a stage starts or ends.
 */
export function createStageRecorder(clock: Clock, t0: number, listener?: { changed(): void }): StageRecorder {
  const list: TraceStage[] = [];
  let open: { index: number; start: number; name: StageName } | null = null;

  const replaceOpen = (status: StageStatus, detail: string | null, durationMs: number) => {
    if (!open) return;
    const previous = list[open.index] as TraceStage;
    list[open.index] = { name: open.name, status, startedAt: previous.startedAt, durationMs, detail };
  };

  return {
    list,
    get current() {
      return open ? open.name : null;
    },
    add(name, start, status, detail) {
      list.push({ name, status, startedAt: roundMs(start - t0), durationMs: roundMs(clock.now() - start), detail });
    },
    begin(name, status = 'running', detail = null) {
      const start = clock.now();
      open = { index: list.length, start, name };
      list.push({ name, status, startedAt: roundMs(start - t0), durationMs: 0, detail });
      listener?.changed();
    },
    mark(status, detail) {
      replaceOpen(status, detail, 0);
      listener?.changed();
    },
    end(status, detail) {
      if (!open) return;
      replaceOpen(status, detail, roundMs(clock.now() - open.start));
      open = null;
      listener?.changed();
    },
    skipRest(until) {
      const offset = roundMs(clock.now() - t0);
      for (const name of STAGE_NAMES) {
        if (name === until) return;
        if (!list.some((s) => s.name === name)) {
          list.push({ name, status: 'skipped', startedAt: offset, durationMs: 0, detail: null });
        }
      }
    },
    failLast(detail) {
      const last = list[list.length - 1];
      if (last) list[list.length - 1] = { ...last, status: 'failed', detail };
    },
  };
}
