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

export function createStageRecorder(clock: Clock, t0: number): StageRecorder {
  const list: TraceStage[] = [];
  return {
    list,
    add(name, start, status, detail) {
      const stage: TraceStage = { name, status, startedAt: start - t0, durationMs: clock.now() - start, detail };
      list.push(stage);
      return { start, stage };
    },
    skipRest(until) {
      const offset = clock.now() - t0;
      for (const name of STAGE_NAMES) {
        if (name === until) return;
        if (!list.some((s) => s.name === name)) {
          list.push({ name, status: 'skipped', startedAt: offset, durationMs: 0, detail: null });
        }
      }
    },
  };
}
