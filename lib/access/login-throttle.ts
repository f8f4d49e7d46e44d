/** Failed logins from one address before it must wait. */
export const FREE_FAILURES = 5;
/** The longest wait a throttled address is asked for. */
export const MAX_WAIT_MS = 15 * 60_000;

export interface LoginThrottle {
  /** Milliseconds the address must still wait before it may try again; 0 when it may now. */
  waitOf(address: string, now: number): number;
  /** A wrong key from the address: after FREE_FAILURES, each failure doubles its wait (1 s, 2 s, 4 s…). */
  failed(address: string, now: number): void;
  /** A good login: the address starts afresh. */
  succeeded(address: string): void;
}

/**
 * Rate limits wrong keys per address, in memory: five tries free, then a wait that doubles with
 * each further failure up to MAX_WAIT_MS. Addresses not seen for a day are forgotten, and at most
 * `maxAddresses` are kept (the oldest go first), so a flood of addresses cannot grow it unbounded.
 */
export function createLoginThrottle(maxAddresses = 10_000): LoginThrottle {
  const failures = new Map<string, { count: number; until: number; last: number }>();
  const forget = (now: number) => {
    for (const [address, entry] of failures) {
      if (failures.size <= maxAddresses && now - entry.last < 24 * 3_600_000) break;
      failures.delete(address);
    }
  };
  return {
    waitOf(address, now) {
      const entry = failures.get(address);
      return entry ? Math.max(0, entry.until - now) : 0;
    },
    failed(address, now) {
      const entry = failures.get(address) ?? { count: 0, until: 0, last: now };
      entry.count++;
      entry.last = now;
      if (entry.count >= FREE_FAILURES) {
        entry.until = now + Math.min(MAX_WAIT_MS, 1000 * 2 ** (entry.count - FREE_FAILURES));
      }
      // Oldest-first order: the address goes to the end.
      failures.delete(address);
      failures.set(address, entry);
      forget(now);
    },
    succeeded(address) {
      failures.delete(address);
    },
  };
}
