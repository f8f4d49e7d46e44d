import { describe, expect, it } from 'vitest';
import { createLoginThrottle, FREE_FAILURES, MAX_WAIT_MS } from './login-throttle';

/**
 * The login throttle, with time passed in: five wrong keys from an address are free, then each
 * further one makes it wait twice as long (1 s, 2 s, 4 s…) up to MAX_WAIT_MS; a good login
 * starts it afresh; other addresses are not affected; and it keeps a bounded number of addresses.
 */

const T0 = 1_700_000_000_000;
const DAY_MS = 24 * 3_600_000;

describe('createLoginThrottle', () => {
  it('lets the first failures through without a wait, and makes the fifth wait a second', () => {
    const throttle = createLoginThrottle();
    expect(FREE_FAILURES).toBe(5);
    for (let i = 1; i < FREE_FAILURES; i++) {
      throttle.failed('10.0.0.1', T0);
      expect(throttle.waitOf('10.0.0.1', T0), `after ${i} failures`).toBe(0);
    }
    throttle.failed('10.0.0.1', T0);
    expect(throttle.waitOf('10.0.0.1', T0)).toBe(1_000);
    expect(throttle.waitOf('10.0.0.1', T0 + 400)).toBe(600);
    expect(throttle.waitOf('10.0.0.1', T0 + 1_000)).toBe(0);
  });

  it('doubles the wait with each further failure, up to MAX_WAIT_MS', () => {
    const throttle = createLoginThrottle();
    let now = T0;
    const waits: number[] = [];
    for (let i = 0; i < FREE_FAILURES + 14; i++) {
      // Each try comes once the previous wait is over, as a patient client's would.
      now += throttle.waitOf('a', now);
      throttle.failed('a', now);
      waits.push(throttle.waitOf('a', now));
    }
    expect(waits.slice(0, FREE_FAILURES - 1)).toEqual([0, 0, 0, 0]);
    expect(waits.slice(FREE_FAILURES - 1, FREE_FAILURES + 10)).toEqual([
      1_000,
      2_000,
      4_000,
      8_000,
      16_000,
      32_000,
      64_000,
      128_000,
      256_000,
      512_000,
      MAX_WAIT_MS,
    ]);
    expect(waits.slice(FREE_FAILURES + 10)).toEqual([MAX_WAIT_MS, MAX_WAIT_MS, MAX_WAIT_MS, MAX_WAIT_MS]);
  });

  it('stays at MAX_WAIT_MS however many failures there were', () => {
    const throttle = createLoginThrottle();
    for (let i = 0; i < 2_000; i++) throttle.failed('a', T0);
    expect(throttle.waitOf('a', T0)).toBe(MAX_WAIT_MS);
  });

  it('starts an address afresh after a good login', () => {
    const throttle = createLoginThrottle();
    for (let i = 0; i < FREE_FAILURES + 3; i++) throttle.failed('a', T0);
    expect(throttle.waitOf('a', T0)).toBeGreaterThan(0);
    throttle.succeeded('a');
    expect(throttle.waitOf('a', T0)).toBe(0);
    for (let i = 1; i < FREE_FAILURES; i++) throttle.failed('a', T0);
    expect(throttle.waitOf('a', T0)).toBe(0);
  });

  it('counts each address on its own', () => {
    const throttle = createLoginThrottle();
    for (let i = 0; i < FREE_FAILURES; i++) throttle.failed('10.0.0.1', T0);
    expect(throttle.waitOf('10.0.0.1', T0)).toBe(1_000);
    expect(throttle.waitOf('10.0.0.2', T0)).toBe(0);
    throttle.succeeded('10.0.0.2');
    expect(throttle.waitOf('10.0.0.1', T0)).toBe(1_000);
  });

  it('keeps at most maxAddresses, forgetting the least recently failed first', () => {
    const throttle = createLoginThrottle(3);
    const fail = (address: string, at: number) => {
      for (let i = 0; i < FREE_FAILURES; i++) throttle.failed(address, at);
    };
    fail('a', T0);
    fail('b', T0 + 1);
    fail('c', T0 + 2);
    // `a` fails again: now `b` is the oldest.
    throttle.failed('a', T0 + 3);
    fail('d', T0 + 4);
    expect(throttle.waitOf('b', T0 + 4)).toBe(0);
    for (const address of ['a', 'c', 'd']) expect(throttle.waitOf(address, T0 + 4), address).toBeGreaterThan(0);
  });

  it('stays bounded under a flood of addresses, keeping the latest', () => {
    const throttle = createLoginThrottle(100);
    const addresses = Array.from({ length: 5_000 }, (_, i) => `10.0.${i >> 8}.${i & 255}`);
    for (const address of addresses) for (let i = 0; i < FREE_FAILURES; i++) throttle.failed(address, T0);
    const waiting = addresses.filter((address) => throttle.waitOf(address, T0) > 0);
    expect(waiting).toEqual(addresses.slice(-100));
  });

  it('forgets addresses not seen for a day', () => {
    const throttle = createLoginThrottle();
    for (let i = 0; i < FREE_FAILURES - 1; i++) throttle.failed('old', T0);
    // Any failure a day later sweeps the old address: its count starts again.
    throttle.failed('new', T0 + DAY_MS);
    throttle.failed('old', T0 + DAY_MS);
    expect(throttle.waitOf('old', T0 + DAY_MS)).toBe(0);

    // Within the day it is kept: the fifth failure makes it wait.
    const kept = createLoginThrottle();
    for (let i = 0; i < FREE_FAILURES - 1; i++) kept.failed('old', T0);
    kept.failed('new', T0 + DAY_MS - 1);
    kept.failed('old', T0 + DAY_MS - 1);
    expect(kept.waitOf('old', T0 + DAY_MS - 1)).toBe(1_000);
  });
});
