import type { Clock } from '../executor/clock';

/**
 * The timers a group commit runs on: the executor's clock port, so tests drive it with the
 * manual clock (`lib/executor/manual-clock.ts`) like everything else.
 */
export type CommitTimers = Pick<Clock, 'setTimeout' | 'clearTimeout'>;

type Handle = { immediate: ReturnType<typeof setImmediate> } | { timeout: ReturnType<typeof setTimeout> };

/**
 * The real timers. A 0 ms timer is `setImmediate`: it runs once the current turn of the event
 * loop has run every I/O callback it had, so the requests read in one turn share a commit — and
 * it waits no longer than that, where Node's `setTimeout(0)` waits a whole millisecond.
 * Neither is unref'd: a queued write keeps the process alive until it is committed.
 */
export const systemCommitTimers: CommitTimers = {
  setTimeout: (callback, ms): Handle =>
    ms <= 0 ? { immediate: setImmediate(callback) } : { timeout: setTimeout(callback, ms) },
  clearTimeout(handle) {
    const timer = handle as Handle;
    if ('immediate' in timer) clearImmediate(timer.immediate);
    else clearTimeout(timer.timeout);
  },
};
