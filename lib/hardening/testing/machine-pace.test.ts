import os from 'node:os';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { crowding, loadCrowding, machinePace } from './machine-pace';
import { waitUntil } from './processes';

/**
 * The factor wall-clock bounds of the tests stretch by (issue 26: the suite on a busy machine),
 * with the machine's load average set by the test (node's `os.loadavg`, spied on): the measured
 * load stretches the bounds, and `waitUntil`'s with them.
 */
afterEach(() => {
  vi.restoreAllMocks();
});

/** Makes the last minute's load average `perCore` runnable tasks per core. */
function loadPerCore(perCore: number): void {
  const cores = os.cpus().length;
  vi.spyOn(os, 'loadavg').mockReturnValue([perCore * cores, perCore * cores, perCore * cores]);
}

describe('crowding', () => {
  it('is the load average per core, at least 1, times the pace of the machine', () => {
    expect(machinePace()).toBeGreaterThanOrEqual(1);
    loadPerCore(0.2);
    expect(loadCrowding()).toBe(1);
    expect(crowding()).toBe(machinePace());
    loadPerCore(3);
    expect(loadCrowding()).toBe(3);
    expect(crowding()).toBeCloseTo(3 * machinePace());
  });
});

describe('waitUntil', () => {
  it('waits past its bound on a crowded machine: the bound stretches by the crowding', async () => {
    loadPerCore(20);
    const ready = performance.now() + 300;
    await waitUntil(() => performance.now() >= ready, 50);
  });

  it('still gives up, after its bound stretched by the crowding', async () => {
    loadPerCore(1);
    const started = performance.now();
    await expect(waitUntil(() => false, 50)).rejects.toThrow(/not true after \d+ ms \(50 ms stretched/);
    expect(performance.now() - started).toBeGreaterThanOrEqual(50 * machinePace() - 1);
  });
});
