import type { z } from 'zod';
import { describeStoreError, isStoreUnavailableError, isStoreWideError } from './db/store-faults';
import { boundDetails, boundText } from './executor/bound-error';

/**
 * Every code an API answer can carry, with its HTTP status: the one table (tRPC's way) the error
 * envelope reads, so no call site maps errors to statuses by hand.
 */
export const ERROR_STATUS = {
  // The request is malformed or names something invalid.
  BAD_REQUEST: 400,
  BAD_PATH: 400,
  BODY_NOT_ALLOWED: 400,
  INVALID_JSON: 400,
  INVALID_REQUEST: 400,
  INVALID_QUERY: 400,
  INVALID_CURSOR: 400,
  INVALID_ARGUMENTS: 400,
  INVALID_RULE: 400,
  INVALID_RULES: 400,
  INVALID_FAULT_RULE: 400,
  INVALID_IMPORT: 400,
  UNSUPPORTED_VERSION: 400,
  TOO_MANY_CALLS: 400,
  RECORDING_NOT_FOUND: 400,
  SESSION_TOO_LARGE: 400,
  SECRET_DESTINATION_CHANGED: 400,
  // Who is asking, and whether they may.
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  SELF_APPROVAL: 403,
  CROSS_ORIGIN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  BODY_TIMEOUT: 408,
  // The thing exists but is not in a state for this.
  CONFLICT: 409,
  NOT_PENDING: 409,
  NOT_RUNNING: 409,
  STILL_RUNNING: 409,
  IMPORTED_TRACE: 409,
  ALREADY_EXISTS: 409,
  ALREADY_REVOKED: 409,
  RULE_SHADOWED: 409,
  // The call's sealed arguments cannot be opened (vault key missing or another one): it cannot run again.
  VAULT_KEY_MISMATCH: 409,
  PRECONDITION_FAILED: 412,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  HOST_NOT_ALLOWED: 421,
  TOO_MANY_REQUESTS: 429,
  HEADERS_TOO_LARGE: 431,
  INTERNAL_ERROR: 500,
  UNAVAILABLE: 503,
  // The database cannot be written now (locked, full, read-only): nothing was done; `Retry-After` says when to.
  STORE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** What an error answer's body is: `{ "error": { "code", "message", "details"? } }`. */
export interface ErrorEnvelope {
  error: { code: ErrorCode; message: string; details?: unknown };
}

/**
 * The one error type of the API: a stable `code` (its status comes from ERROR_STATUS), a message
 * written for the person or program that sent the request, optional `details`, and headers the
 * answer must carry (`Allow`, `Retry-After`). Handlers throw it; the HTTP layer answers it once.
 * @example throw new ApiError('NOT_FOUND', `No trace with id "${id}".`);
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.status = ERROR_STATUS[code];
  }
}

/**
 * Whether `error` is an ApiError from any copy of this module: matched by name and code,
 * never `instanceof` (the production build can hold one copy per chunk).
 */
export function isApiError(error: unknown): error is ApiError {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as Partial<ApiError>;
  return e.name === 'ApiError' && typeof e.code === 'string' && e.code in ERROR_STATUS;
}

/** The envelope of an error, its message and details within an error's bounds (see `bound-error.ts`). */
export function errorEnvelope(code: ErrorCode, message: string, details?: unknown): ErrorEnvelope {
  return {
    error: { code, message: boundText(message), ...(details === undefined ? {} : { details: boundDetails(details) }) },
  };
}

/**
 * Any throw as an ApiError, in one place: an ApiError as it is; the trace store refusing work
 * (`StoreUnavailableError`) or SQLite failing for the whole database (busy, full, read-only, I/O:
 * `isStoreWideError`) as 503 STORE_UNAVAILABLE with `Retry-After`, the cause kept; anything else
 * as the 500 whose cause stays on the error (logged, never sent).
 */
export function toApiError(error: unknown): ApiError {
  if (isApiError(error)) return error;
  if (isStoreUnavailableError(error)) {
    return new ApiError('STORE_UNAVAILABLE', error.message, undefined, { 'retry-after': String(error.retryAfterS) });
  }
  if (isStoreWideError(error)) {
    const { code, message } = describeStoreError(error);
    const unavailable = new ApiError(
      'STORE_UNAVAILABLE',
      `Toolscope's database cannot be written right now (${code}: ${message}); the request was not completed. Try again shortly.`,
      undefined,
      { 'retry-after': '1' },
    );
    (unavailable as { cause?: unknown }).cause = error;
    return unavailable;
  }
  const internal = new ApiError(
    'INTERNAL_ERROR',
    'Toolscope failed to handle the request; the server log has details.',
  );
  (internal as { cause?: unknown }).cause = error;
  return internal;
}

/** A zod error as one line for an API message: the first few issues, each with its path. */
export function zodMessage(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join('.') || 'body'}: ${i.message}`)
    .join('; ');
}
