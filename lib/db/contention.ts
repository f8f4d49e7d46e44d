/**
 * Whether an error is another connection getting in the way (busy, locked, or a migration the
 * other process already applied): worth another try after a short pause.
 */
export function isContention(error: unknown, depth = 0): boolean {
  if (depth > 3 || typeof error !== 'object' || error === null) return false;
  const { code, message, cause } = error as { code?: unknown; message?: unknown; cause?: unknown };
  return (
    (typeof code === 'string' && code.startsWith('SQLITE_BUSY')) ||
    (typeof message === 'string' && /already exists|database is locked/.test(message)) ||
    isContention(cause, depth + 1)
  );
}

/**
 * Runs `work`, retrying it after a short random pause while it fails through contention.
 * Synchronous, as better-sqlite3 is; only used while opening a database.
 */
export function retryOnContention<T>(work: () => T, isRetryable = isContention, attempts = 20): T {
  for (let attempt = 1; ; attempt++) {
    try {
      return work();
    } catch (error) {
      if (attempt >= attempts || !isRetryable(error)) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5 + Math.random() * 20 * attempt);
    }
  }
}
