import type { Clock } from './clock';
import { STAGE_NAMES, type StageName, type StageStatus, type TraceStage } from './types';

export interface StageRecorder {
  /** The stages so far, in pipeline order; the trace record holds this same array. */
  readonly list: TraceStage[];
  /** The stage in progress (begun, not ended), if any. */
  readonly current: StageName | null;
  /**
   * The clock time the recorder last read (a stage's start or end): the next stage starts
   * there, so a call reads the clock about once per stage (reads are not free on the hot path).
   */
  readonly lastAt: number;
  /** Reads the clock again after a wait between stages; returns the time. */
  touch(): number;
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

/** Told when the stages change, and when a stage that may wait begins. */
export interface StageListener {
  changed(): void;
  stageBegan?(name: StageName): void;
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
 * A class, not closures: one is made per call, on the hot path.
 */
class Recorder implements StageRecorder {
  readonly list: TraceStage[] = [];
  private openIndex = -1;
  private openStart = 0;
  lastAt: number;

  constructor(
    private readonly clock: Clock,
    private readonly t0: number,
    private readonly listener: StageListener | undefined,
  ) {
    this.lastAt = t0;
  }

  touch(): number {
    this.lastAt = this.clock.now();
    return this.lastAt;
  }

  get current(): StageName | null {
    return this.openIndex < 0 ? null : (this.list[this.openIndex] as TraceStage).name;
  }

  add(name: StageName, start: number, status: StageStatus, detail: string | null): void {
    const end = this.clock.now();
    this.lastAt = end;
    this.list.push({ name, status, startedAt: roundMs(start - this.t0), durationMs: roundMs(end - start), detail });
  }

  begin(name: StageName, status: 'running' | 'waiting' = 'running', detail: string | null = null): void {
    const start = this.touch();
    this.openIndex = this.list.length;
    this.openStart = start;
    this.list.push({ name, status, startedAt: roundMs(start - this.t0), durationMs: 0, detail });
    this.listener?.changed();
    this.listener?.stageBegan?.(name);
  }

  mark(status: 'running' | 'waiting', detail: string | null): void {
    this.replaceOpen(status, detail, 0);
    this.listener?.changed();
  }

  end(status: 'ok' | 'failed', detail: string | null): void {
    if (this.openIndex < 0) return;
    this.replaceOpen(status, detail, roundMs(this.touch() - this.openStart));
    this.openIndex = -1;
    this.listener?.changed();
  }

  skipRest(until: StageName): void {
    const offset = roundMs(this.lastAt - this.t0);
    for (const name of STAGE_NAMES) {
      if (name === until) return;
      if (!this.has(name)) this.list.push({ name, status: 'skipped', startedAt: offset, durationMs: 0, detail: null });
    }
  }

  failLast(detail: string): void {
    const last = this.list[this.list.length - 1];
    if (last) this.list[this.list.length - 1] = { ...last, status: 'failed', detail };
  }

  private has(name: StageName): boolean {
    for (const stage of this.list) if (stage.name === name) return true;
    return false;
  }

  private replaceOpen(status: StageStatus, detail: string | null, durationMs: number): void {
    const open = this.list[this.openIndex];
    if (!open) return;
    this.list[this.openIndex] = { name: open.name, status, startedAt: open.startedAt, durationMs, detail };
  }
}

/** Creates the stage recorder of one call that started at `t0` (clock time). */
export function createStageRecorder(clock: Clock, t0: number, listener?: StageListener): StageRecorder {
  return new Recorder(clock, t0, listener);
}
