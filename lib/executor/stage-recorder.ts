import type { Clock } from './clock';
import { STAGE_NAMES, type StageName, type StageStatus, type TraceStage } from './types';

export interface StageRecorder {
  /** The stages so far, in pipeline order; the trace record holds this same array. */
  list: TraceStage[];
  /** Records a stage that started at `start` (clock time) and ends now. */
  add(name: StageName, start: number, status: StageStatus, detail: string | null): { start: number; stage: TraceStage };
  /** Records every stage before `until` that has not run as skipped, so each trace has all six. */
  skipRest(until: StageName): void;
}

/** Milliseconds rounded to the microsecond: the clock's real precision, and cheaper to store. */
export function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

export function createStageRecorder(clock: Clock, t0: number): StageRecorder {
  const list: TraceStage[] = [];
  return {
    list,
    add(name, start, status, detail) {
      const stage: TraceStage = {
        name,
        status,
        startedAt: roundMs(start - t0),
        durationMs: roundMs(clock.now() - start),
        detail,
      };
      list.push(stage);
      return { start, stage };
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
  };
}
