import type { Clock } from './clock';

interface Timer {
  id: number;
  at: number;
  callback: () => void;
}

export interface ManualClock extends Clock {
  /** Moves time forward, firing due timers in order and letting promises settle between them. */
  advance(ms: number): Promise<void>;
  /** Timers scheduled and not yet fired or cleared. */
  pendingTimers(): number;
}

const settle = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
  await new Promise((resolve) => setImmediate(resolve));
};

/**
 * A clock that only moves when told to: for tests of timeouts, backoff and breakers, and for
 * deterministic runs. Starts at `start` epoch ms.
 */
export function createManualClock(start = Date.UTC(2026, 0, 1)): ManualClock {
  let now = 0;
  let nextId = 1;
  const timers = new Map<number, Timer>();
  return {
    now: () => now,
    epochMs: () => start + now,
    setTimeout(callback, ms) {
      const id = nextId++;
      timers.set(id, { id, at: now + Math.max(0, ms), callback });
      return id;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
    pendingTimers: () => timers.size,
    async advance(ms) {
      const target = now + ms;
      await settle();
      for (;;) {
        const due = [...timers.values()].filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.id - b.id)[0];
        if (!due) break;
        timers.delete(due.id);
        now = due.at;
        due.callback();
        await settle();
      }
      now = target;
      await settle();
    },
  };
}
