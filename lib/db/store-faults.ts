/**
 * SQLite result codes (primary, as better-sqlite3's `code` starts) that say the database as a
 * whole cannot be written now — locked by another process, the disk full or read-only, I/O
 * failing, the file unreadable — as opposed to one statement's own failure (a constraint, a
 * trigger's RAISE, a value too big), which another write in the same batch would not share.
 */
const STORE_WIDE_SQLITE = new Set([
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_FULL',
  'SQLITE_READONLY',
  'SQLITE_IOERR',
  'SQLITE_CANTOPEN',
  'SQLITE_CORRUPT',
  'SQLITE_NOTADB',
  'SQLITE_NOMEM',
  'SQLITE_PROTOCOL',
  'SQLITE_NOLFS',
  'SQLITE_PERM',
]);

/** Errors of the file system with the same meaning, from what the store writes beside SQLite. */
const STORE_WIDE_ERRNO = new Set(['ENOSPC', 'EROFS', 'EIO', 'EDQUOT', 'EACCES', 'EPERM']);

/** The primary SQLite code of an extended one (`SQLITE_IOERR_WRITE` → `SQLITE_IOERR`). */
function primaryCode(code: string): string {
  const second = code.indexOf('_', 'SQLITE_'.length);
  return second < 0 ? code : code.slice(0, second);
}

/**
 * Whether `error` means the database cannot be written now, whatever is written: worth retrying
 * the same writes later, never worth splitting a batch over. Matched on `code` (better-sqlite3's
 * `SqliteError`, Node's errno errors), never `instanceof`.
 */
export function isStoreWideError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code } = error as { code?: unknown };
  if (typeof code !== 'string') return false;
  return code.startsWith('SQLITE_') ? STORE_WIDE_SQLITE.has(primaryCode(code)) : STORE_WIDE_ERRNO.has(code);
}

/**
 * Thrown when the trace store refuses work it cannot record: a new call while its writes are
 * failing and its queue is full (`TraceStore.admit`), or a write that must be on disk before it
 * returns while commits are failing. The API answers it `503 STORE_UNAVAILABLE` with
 * `Retry-After: retryAfterS`. Recognise it with `isStoreUnavailableError`, not `instanceof`.
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  readonly code = 'STORE_UNAVAILABLE';

  constructor(
    message: string,
    /** When the store next tries to commit, in whole seconds (at least 1). */
    readonly retryAfterS: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Whether `error` is a `StoreUnavailableError` from any copy of this module (matched on `code`). */
export function isStoreUnavailableError(error: unknown): error is StoreUnavailableError {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'STORE_UNAVAILABLE';
}

/** `code: message` of an error for logs and health, without its stack; bounded. */
export function describeStoreError(error: unknown): { code: string | null; message: string } {
  if (typeof error === 'object' && error !== null) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    return {
      code: typeof code === 'string' ? code : null,
      message: (typeof message === 'string' ? message : String(error)).slice(0, 500),
    };
  }
  return { code: null, message: String(error).slice(0, 500) };
}
