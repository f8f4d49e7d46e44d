import type { TraceRecord, TraceSink } from './types';

export type SinkEventType = 'begin' | 'update' | 'finish';

/** One thing a secondary sink is told: a call began, changed or finished, with its record then. */
export interface SinkEvent {
  type: SinkEventType;
  /**
   * `finish`: the final record (not copied: nothing changes it any more). `begin`/`update`: a
   * copy taken when the event happened, since the call goes on changing its record.
   */
  record: TraceRecord;
}

/**
 * A sink beside the store (an exporter): told of calls in batches, after the store, off the
 * call's path. It can be slow, fail or hang without a call noticing.
 */
export interface SecondarySink {
  /** Named in the log when it fails or falls behind. */
  name: string;
  /** The events it wants (default all three): an exporter of finished calls costs nothing on the others. */
  events?: readonly SinkEventType[];
  /** Told of a batch of events, in the order they happened. May be async; a rejection is logged. */
  write(events: SinkEvent[]): void | Promise<void>;
  /** Writes what it holds and lets go of its resources (at shutdown, after the last `write`). */
  close?(): void | Promise<void>;
}

export interface FanOutOptions {
  /** Events waiting per secondary sink; past it new ones are dropped (and counted). Default 10,000. */
  maxQueue?: number;
  /** Events per `write`. Default 512. */
  maxBatch?: number;
  /** A `write` not settled by then is given up on and the next batch goes ahead. Default 10 s. */
  writeTimeoutMs?: number;
  /** Where failures and drops are reported (at most once a minute per sink). Default `console.error`. */
  log?: (message: string) => void;
}

export interface SinkStats {
  name: string;
  /** Waiting to be written. */
  queued: number;
  /** Handed to `write` (whatever became of them). */
  written: number;
  /** Dropped because the queue was full or the fan-out closed. */
  dropped: number;
  /** Batches whose `write` threw, rejected or timed out. */
  failedBatches: number;
}

export interface FanOut {
  /** The sink the executor writes to: the main sink itself when there is no secondary one. */
  sink: TraceSink;
  /** Resolves once every queued event has been written, true; false when `timeoutMs` ran out first. */
  flush(timeoutMs?: number): Promise<boolean>;
  /** Stops taking events, flushes, then closes the secondary sinks; bounded by `timeoutMs` in all. */
  close(timeoutMs?: number): Promise<boolean>;
  stats(): SinkStats[];
}

const DEFAULT_MAX_QUEUE = 10_000;
const DEFAULT_MAX_BATCH = 512;
const DEFAULT_WRITE_TIMEOUT_MS = 10_000;
const LOG_EVERY_MS = 60_000;

/**
 * The store's sink first, then the secondary sinks (exporters), which never slow down or fail a
 * call: the executor writes to the main sink and is answered by it alone, exactly as without
 * secondaries; once the main sink has the event, each secondary sink gets it through a queue of
 * its own, bounded (`maxQueue`, then dropped and counted) and drained in batches (`maxBatch`) on
 * a later turn of the event loop. A secondary sink that throws, rejects or hangs (`writeTimeoutMs`)
 * is logged at most once a minute and told of the next batch all the same; one sink's trouble
 * never holds up another's queue. With no secondary sink, the main sink is returned as is.
 */
export function createFanOutSink(main: TraceSink, secondaries: SecondarySink[], options: FanOutOptions = {}): FanOut {
  const lanes = secondaries.map((sink) => new Lane(sink, options));
  const idle = () => Promise.resolve(true);
  if (lanes.length === 0) return { sink: main, flush: idle, close: idle, stats: () => [] };
  const wanted = (type: SinkEventType) => lanes.filter((lane) => lane.wants(type));
  const byType = { begin: wanted('begin'), update: wanted('update'), finish: wanted('finish') };

  const tell = (type: SinkEventType, record: TraceRecord) => {
    const to = byType[type];
    if (to.length === 0) return;
    const event: SinkEvent = { type, record: type === 'finish' ? record : snapshot(record) };
    for (const lane of to) lane.push(event);
  };
  const after = (type: SinkEventType) => (record: TraceRecord) => {
    const saved = main[type](record);
    if (!saved) {
      tell(type, record);
      return;
    }
    return saved.then(() => tell(type, record));
  };
  let closing: Promise<boolean> | undefined;
  return {
    sink: {
      begin: after('begin'),
      update: after('update'),
      finish: after('finish'),
      progress: main.progress ? (record) => main.progress?.(record) : undefined,
      // Live-view hooks go to the main sink only (the event bus): secondary sinks see whole records.
      step: main.step ? (record, step) => main.step?.(record, step) : undefined,
    },
    flush: (timeoutMs = Number.POSITIVE_INFINITY) => within(timeoutMs, Promise.all(lanes.map((lane) => lane.idle()))),
    close(timeoutMs = 5_000) {
      closing ??= within(
        timeoutMs,
        Promise.all(
          lanes.map(async (lane) => {
            lane.stopTaking();
            await lane.idle();
            await lane.closeSink();
          }),
        ),
      );
      return closing;
    },
    stats: () => lanes.map((lane) => lane.stats()),
  };
}

/** True once `work` is done, false if `timeoutMs` passes first (the work goes on unobserved). */
function within(timeoutMs: number, work: Promise<unknown>): Promise<boolean> {
  if (!Number.isFinite(timeoutMs)) return work.then(() => true);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
    timer.unref?.();
  });
  return Promise.race([work.then(() => true), late]).finally(() => clearTimeout(timer));
}

/** A running call's record as it is now: what changes later (status, stages, attempts, approval) is copied. */
function snapshot(record: TraceRecord): TraceRecord {
  return {
    ...record,
    stages: record.stages.map((stage) => ({ ...stage })),
    attempts: record.attempts.map((attempt) => ({ ...attempt })),
    approval: record.approval && { ...record.approval },
    flags: { ...record.flags },
  };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/** One secondary sink's queue and the loop that drains it. */
class Lane {
  private queue: SinkEvent[] = [];
  private scheduled = false;
  private busy = false;
  private taking = true;
  private waiters: Array<() => void> = [];
  private readonly types: ReadonlySet<SinkEventType>;
  private readonly maxQueue: number;
  private readonly maxBatch: number;
  private readonly writeTimeoutMs: number;
  private readonly log: (message: string) => void;
  private written = 0;
  private dropped = 0;
  private failedBatches = 0;
  /** Drops and failures not yet reported, and when the last report was. */
  private unreportedDrops = 0;
  private lastDropReport = Number.NEGATIVE_INFINITY;
  private lastFailureReport = Number.NEGATIVE_INFINITY;
  private unreportedFailures = 0;

  constructor(
    private readonly sink: SecondarySink,
    options: FanOutOptions,
  ) {
    this.types = new Set(sink.events ?? ['begin', 'update', 'finish']);
    this.maxQueue = Math.max(1, options.maxQueue ?? DEFAULT_MAX_QUEUE);
    this.maxBatch = Math.max(1, options.maxBatch ?? DEFAULT_MAX_BATCH);
    this.writeTimeoutMs = options.writeTimeoutMs ?? DEFAULT_WRITE_TIMEOUT_MS;
    this.log = options.log ?? ((message) => console.error(message));
  }

  wants(type: SinkEventType): boolean {
    return this.types.has(type);
  }

  push(event: SinkEvent): void {
    if (!this.taking || this.queue.length >= this.maxQueue) {
      this.dropped++;
      this.unreportedDrops++;
      const now = Date.now();
      if (now - this.lastDropReport >= LOG_EVERY_MS) {
        this.lastDropReport = now;
        this.log(
          `[toolscope] trace sink "${this.sink.name}" is behind: dropped ${this.unreportedDrops} event(s) ` +
            `(queue of ${this.maxQueue} full${this.taking ? '' : ' or closed'}); calls are not affected`,
        );
        this.unreportedDrops = 0;
      }
      return;
    }
    this.queue.push(event);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled || this.busy) return;
    this.scheduled = true;
    setImmediate(() => this.drain());
  }

  private drain(): void {
    this.scheduled = false;
    if (this.queue.length === 0) {
      this.settled();
      return;
    }
    const batch = this.queue.length <= this.maxBatch ? this.queue : this.queue.slice(0, this.maxBatch);
    this.queue = batch === this.queue ? [] : this.queue.slice(this.maxBatch);
    this.written += batch.length;
    this.busy = true;
    let result: unknown;
    try {
      result = this.sink.write(batch);
    } catch (error) {
      this.failed(error);
    }
    if (!isThenable(result)) {
      this.done();
      return;
    }
    let finished = false;
    const finish = (error?: unknown, failed = false) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      if (failed) this.failed(error);
      this.done();
    };
    const timer = setTimeout(
      () => finish(new Error(`no answer after ${this.writeTimeoutMs} ms; going on with the next batch`), true),
      this.writeTimeoutMs,
    );
    timer.unref?.();
    result.then(
      () => finish(),
      (error: unknown) => finish(error, true),
    );
  }

  private done(): void {
    this.busy = false;
    if (this.queue.length > 0) this.schedule();
    else this.settled();
  }

  private settled(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }

  private failed(error: unknown): void {
    this.failedBatches++;
    this.unreportedFailures++;
    const now = Date.now();
    if (now - this.lastFailureReport < LOG_EVERY_MS) return;
    this.lastFailureReport = now;
    const more =
      this.unreportedFailures > 1 ? ` (${this.unreportedFailures} failed batches since the last report)` : '';
    this.unreportedFailures = 0;
    this.log(
      `[toolscope] trace sink "${this.sink.name}" failed${more}; calls are not affected: ${error instanceof Error ? error.message : String(error)}`,
    );
  }

  /** Resolves once the queue is empty and no write is under way. */
  idle(): Promise<void> {
    if (this.queue.length === 0 && !this.busy && !this.scheduled) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  stopTaking(): void {
    this.taking = false;
  }

  async closeSink(): Promise<void> {
    try {
      await this.sink.close?.();
    } catch (error) {
      this.log(
        `[toolscope] trace sink "${this.sink.name}" failed to close: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  stats(): SinkStats {
    return {
      name: this.sink.name,
      queued: this.queue.length,
      written: this.written,
      dropped: this.dropped,
      failedBatches: this.failedBatches,
    };
  }
}

/**
 * A `TraceSink` (begin/update/finish, as hosts pass in `ToolscopeOptions.sinks`) as a secondary
 * sink: each event of a batch in turn (an async one awaited before the next); when some failed,
 * the batch fails with the first error, after the others were told.
 */
export function secondaryFromTraceSink(sink: TraceSink, name = 'extra sink'): SecondarySink {
  return {
    name,
    async write(events) {
      let failure: { error: unknown } | undefined;
      for (const event of events) {
        try {
          const told = sink[event.type](event.record);
          if (told) await told;
        } catch (error) {
          failure ??= { error };
        }
      }
      if (failure) throw failure.error;
    },
  };
}
