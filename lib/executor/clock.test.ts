import { describe, expect, it } from 'vitest';
import { type Clock, sleep, systemClock } from './clock';
import { createManualClock } from './manual-clock';

/** A clock whose timers of 1 ms or more fire a little before their time, as Node's can by `performance.now()`. */
function earlyClock(earlyMs: number): Clock & { fired: number[] } {
  let now = 0;
  const fired: number[] = [];
  return {
    fired,
    now: () => now,
    epochMs: () => now,
    setTimeout(callback, ms) {
      const at = now + (ms >= 1 ? ms - earlyMs : ms);
      return setImmediate(() => {
        now = at;
        fired.push(at);
        callback();
      });
    },
    clearTimeout: (handle) => clearImmediate(handle as ReturnType<typeof setImmediate>),
  };
}

describe('sleep', () => {
  it('never resolves before its time, even when a timer fires early: it sleeps the rest', async () => {
    const clock = earlyClock(0.05);
    const start = clock.now();
    await sleep(clock, 300);
    expect(clock.now() - start).toBeGreaterThanOrEqual(300);
    expect(clock.fired.length).toBe(2);
  });

  it('resolves after its time on the manual clock, with one timer', async () => {
    const clock = createManualClock();
    let done = false;
    const slept = sleep(clock, 100).then(() => {
      done = true;
    });
    await clock.advance(99);
    expect(done).toBe(false);
    await clock.advance(1);
    await slept;
    expect(done).toBe(true);
  });

  it('rejects with the reason when its signal aborts, also while sleeping the rest', async () => {
    const controller = new AbortController();
    const slept = sleep(systemClock, 10_000, controller.signal);
    controller.abort({ by: 'client' });
    await expect(slept).rejects.toEqual({ by: 'client' });
    await expect(sleep(systemClock, 10, controller.signal)).rejects.toEqual({ by: 'client' });
  });

  it('lasts at least its time on the system clock', async () => {
    for (const ms of [1, 5, 20]) {
      const start = performance.now();
      await sleep(systemClock, ms);
      expect(performance.now() - start).toBeGreaterThanOrEqual(ms);
    }
  });
});
