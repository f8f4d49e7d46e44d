/** Opaque handle returned by a Clock's setTimeout. */
export type TimerHandle = unknown;

/**
 * Time as the executor sees it. Injected so tests control time (vitest's fake timers do not
 * drive `AbortSignal.timeout`, so nothing here uses it).
 */
export interface Clock {
  /** Monotonic milliseconds, for durations. */
  now(): number;
  /** Wall-clock epoch milliseconds, for timestamps. */
  epochMs(): number;
  setTimeout(callback: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** The real clock: performance.now, Date.now and the global timers. */
export const systemClock: Clock = {
  now: () => performance.now(),
  epochMs: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/**
 * Resolves once `ms` have passed on the given clock, or rejects with the signal's reason when it
 * aborts first. The timer and the listener are always removed. Never early: Node's timers count
 * whole milliseconds of a time taken at the start of the loop's turn, so a 300 ms timer can fire
 * when `clock.now()` says 299.95 ms have passed; the rest is slept again (a latency fault of
 * 300 ms must show an attempt of at least 300 ms).
 */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (ms <= 0) return Promise.resolve();
  const until = clock.now() + ms;
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clock.clearTimeout(handle);
      reject(signal?.reason);
    };
    const wake = () => {
      const left = until - clock.now();
      if (left > 0) {
        handle = clock.setTimeout(wake, left);
        return;
      }
      signal?.removeEventListener('abort', onAbort);
      resolve();
    };
    let handle = clock.setTimeout(wake, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
