import { type Clock, systemClock } from '../executor/clock';
import type { TraceStore } from './trace-store';

/** Which calls to delete; null means no bound. `Config.retention` has this shape. */
export interface RetentionPolicy {
  /** Calls created more than this many days ago are deleted. */
  maxAgeDays: number | null;
  /** Only the newest this many calls are kept. */
  maxCalls: number | null;
}

/** What one sweep deleted. */
export interface RetentionSweep {
  /** Calls older than `maxAgeDays`. */
  expired: number;
  /** Calls beyond the newest `maxCalls`. */
  overLimit: number;
}

export interface RetentionOptions {
  store: Pick<TraceStore, 'prune'>;
  retention: RetentionPolicy;
  /** Schedules the sweeps and tells the time; the system clock unless a test drives it. */
  clock?: Clock;
  /** Delay before the first sweep: soon after start, not during it. Default 10 s. */
  firstSweepAfterMs?: number;
  /** Between the end of one sweep and the start of the next. Default one hour. */
  intervalMs?: number;
  /** Calls deleted per transaction. Default 500: a few milliseconds of holding the write lock. */
  chunkSize?: number;
  /** Called after each sweep that deleted calls. */
  onDeleted?: (sweep: RetentionSweep) => void;
  /** Called after every sweep, deleted or not: for data kept beside the calls (chart aggregates). */
  afterSweep?: (now: number) => void;
  /** Where to say what was deleted and what failed. Default: the console. */
  log?: (message: string) => void;
  /** Lets calls run between chunks. Default: the next turn of the event loop (`setImmediate`). */
  yieldToEventLoop?: () => Promise<void>;
}

export interface Retention {
  /** Cancels the next sweep and stops a running one after its current chunk. */
  stop(): void;
  /** Sweeps now (or joins the sweep already running); resolves with what it deleted. */
  sweep(): Promise<RetentionSweep>;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Keeps the database from growing without bound: deletes calls past the retention policy in the
 * background.
 * 1. The first sweep runs `firstSweepAfterMs` after start, then one every `intervalMs`.
 * 2. A sweep deletes calls older than `maxAgeDays`, then calls beyond the newest `maxCalls`,
 *    oldest first, `chunkSize` per transaction, yielding to the event loop between chunks: calls
 *    are recorded in between, never blocked behind a large backlog.
 * 3. Calls still running or awaiting approval are never deleted (the store refuses them).
 * 4. It logs what it deleted; a failed sweep is logged and the next one tries again.
 * With both bounds null it schedules nothing (and `afterSweep` never runs).
 * @example const retention = startRetention({ store, retention: config.retention }); // on close: retention.stop()
 */
export function startRetention({
  store,
  retention,
  clock = systemClock,
  firstSweepAfterMs = 10_000,
  intervalMs = 60 * 60 * 1000,
  chunkSize = 500,
  onDeleted,
  afterSweep,
  log = (message) => console.info(message),
  yieldToEventLoop = () => new Promise((resolve) => setImmediate(resolve)),
}: RetentionOptions): Retention {
  const { maxAgeDays, maxCalls } = retention;
  const limit = Math.max(1, Math.floor(chunkSize));
  let stopped = false;
  let timer: unknown = null;
  let running: Promise<RetentionSweep> | null = null;

  async function deleteInChunks(bound: { createdBefore: number } | { keepNewest: number }): Promise<number> {
    let deleted = 0;
    for (;;) {
      const chunk = store.prune({ ...bound, limit });
      deleted += chunk;
      if (chunk < limit || stopped) return deleted;
      await yieldToEventLoop();
    }
  }

  async function run(): Promise<RetentionSweep> {
    const sweep: RetentionSweep = { expired: 0, overLimit: 0 };
    if (maxAgeDays !== null) {
      sweep.expired = await deleteInChunks({ createdBefore: clock.epochMs() - maxAgeDays * DAY_MS });
    }
    if (maxCalls !== null && !stopped) sweep.overLimit = await deleteInChunks({ keepNewest: maxCalls });
    if (sweep.expired + sweep.overLimit > 0) {
      log(`[toolscope] retention deleted ${summarize(sweep, retention)}`);
      onDeleted?.(sweep);
    }
    afterSweep?.(clock.epochMs());
    return sweep;
  }

  function sweep(): Promise<RetentionSweep> {
    running ??= run().finally(() => {
      running = null;
    });
    return running;
  }

  function schedule(delay: number): void {
    if (stopped) return;
    timer = clock.setTimeout(() => {
      timer = null;
      sweep()
        .catch((error: unknown) => log(`[toolscope] retention failed; next try in ${intervalMs} ms: ${String(error)}`))
        .finally(() => schedule(intervalMs));
    }, delay);
    // An hourly timer must not keep a stopping server alive.
    (timer as { unref?: () => void } | null)?.unref?.();
  }

  if (maxAgeDays !== null || maxCalls !== null) schedule(firstSweepAfterMs);

  return {
    stop() {
      stopped = true;
      if (timer !== null) clock.clearTimeout(timer);
      timer = null;
    },
    sweep,
  };
}

function summarize(sweep: RetentionSweep, retention: RetentionPolicy): string {
  const parts = [
    sweep.expired > 0 && `${sweep.expired} calls older than ${retention.maxAgeDays} days`,
    sweep.overLimit > 0 && `${sweep.overLimit} calls beyond the newest ${retention.maxCalls}`,
  ].filter(Boolean);
  return parts.join(' and ');
}
