/**
 * Why a client call failed, with the API's stable `code` and the HTTP `status`.
 * The codes the client adds itself (the API's own come from its error bodies):
 */
export const CLIENT_ERROR_CODES = {
  /** The server could not be reached (connection refused, DNS, reset). `status` 0. */
  NETWORK_ERROR: 'NETWORK_ERROR',
  /** The answer was not the JSON the API sends (a proxy's HTML page, a cut body). */
  BAD_RESPONSE: 'BAD_RESPONSE',
  /** `waitForApproval` gave up after its `timeoutMs`. `status` 0. */
  TIMEOUT: 'TIMEOUT',
  /** The caller's signal aborted the request. `status` 0. */
  ABORTED: 'ABORTED',
} as const;

/**
 * One error class for everything the client can fail with. Match on `code` (not `instanceof`:
 * an app can hold two copies of this module); `isToolscopeError` does.
 * @example
 * try { await client.getTrace(id) } catch (e) { if (isToolscopeError(e) && e.code === 'NOT_FOUND') … }
 */
export class ToolscopeError extends Error {
  override readonly name = 'ToolscopeError';
  constructor(
    /** The API's code (`NOT_FOUND`, `INVALID_REQUEST`, …) or one of CLIENT_ERROR_CODES. */
    readonly code: string,
    message: string,
    /** The HTTP status; 0 when there was no answer. */
    readonly status: number,
    /** The API's `error.details`, when it sent any. */
    readonly details?: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Whether `error` is a `ToolscopeError` from any copy of this module. */
export function isToolscopeError(error: unknown): error is ToolscopeError {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as Partial<ToolscopeError>;
  return e.name === 'ToolscopeError' && typeof e.code === 'string' && typeof e.status === 'number';
}

/** A thrown fetch failure as a ToolscopeError: an abort by the caller, else a network error. */
export function fromFetchFailure(error: unknown, what: string, signal?: AbortSignal): ToolscopeError {
  if (isToolscopeError(error)) return error;
  if (signal?.aborted) {
    return new ToolscopeError(CLIENT_ERROR_CODES.ABORTED, `${what}: aborted`, 0, undefined, { cause: error });
  }
  const reason = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : error;
  return new ToolscopeError(CLIENT_ERROR_CODES.NETWORK_ERROR, `${what}: ${String(reason)}`, 0, undefined, {
    cause: error,
  });
}
