/** What an action says when its request never reached the server (a failed fetch, not an HTTP error). */
export const NOT_REACHABLE = 'not sent: Toolscope is not reachable';

/** The `code` of that error, beside the API's own codes (status 0: no answer). */
export const UNREACHABLE = 'UNREACHABLE' as const;

/** An action's request that got no answer: `code` UNREACHABLE, `status` 0, NOT_REACHABLE as its message. */
export type UnreachableError = Error & { code: typeof UNREACHABLE; status: 0 };

export function unreachableError(cause?: unknown): UnreachableError {
  return Object.assign(new Error(NOT_REACHABLE, { cause }), { code: UNREACHABLE, status: 0 as const });
}

/** Whether `error` says the server was not reached (matched on `code`, not `instanceof`). */
export function isUnreachableError(error: unknown): error is UnreachableError {
  return error instanceof Error && (error as Partial<UnreachableError>).code === UNREACHABLE;
}

/**
 * `fetch`, where no answer at all (server down, network gone) rejects with an `UnreachableError`;
 * an HTTP error answer resolves as usual. An abort by the caller is passed on as it is.
 */
export async function fetchOrUnreachable(input: string, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(input, init);
  } catch (error) {
    if (init?.signal?.aborted) throw error;
    throw unreachableError(error);
  }
}
