import type { Clock } from './clock';

/** How often, at most, a running call's progress is published. */
export const PROGRESS_INTERVAL_MS = 100;

export interface ProgressThrottle {
  /** The record changed: publish now if the last publication is old enough, otherwise once later. */
  changed(): void;
  /** The record was published another way (the sink's begin or update): changes wait their turn. */
  published(): void;
  /** The call ended (its final record is published by `finish`): drop what is pending, and its timer. */
  stop(): void;
}

/**
 * Throttles one call's progress on the injected clock: at most one publication per interval,
 * with a trailing one so the last change is always published. Nothing is published before the
 * first `published()` (the record is not known to listeners before the sink's `begin`).
 */
export function createProgressThrottle(clock: Clock, publish: () => void, intervalMs = PROGRESS_INTERVAL_MS) {
  let active = false;
  let last = 0;
  let scheduled = false;
  let timer: unknown;

  const fire = () => {
    scheduled = false;
    if (!active) return;
    last = clock.now();
    publish();
  };

  const throttle: ProgressThrottle = {
    changed() {
      if (!active || scheduled) return;
      const wait = last + intervalMs - clock.now();
      if (wait <= 0) {
        fire();
        return;
      }
      scheduled = true;
      timer = clock.setTimeout(fire, wait);
    },
    published() {
      active = true;
      last = clock.now();
    },
    stop() {
      active = false;
      if (scheduled) clock.clearTimeout(timer);
      scheduled = false;
    },
  };
  return throttle;
}
