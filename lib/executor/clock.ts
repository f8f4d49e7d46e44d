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
 * Resolves after `ms` on the given clock, or rejects with the signal's reason when it aborts
 * first. The timer and the listener are always removed.
 */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clock.clearTimeout(handle);
      reject(signal?.reason);
    };
    const handle = clock.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
