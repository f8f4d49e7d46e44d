import { boundDetails, boundText } from '../executor/bound-error';

/**
 * The error body every API failure returns: `{ "error": { "code", "message" } }`, its message and
 * details within an error's bounds (a message quoting a megabyte key, issues by the thousand: see
 * `lib/executor/bound-error.ts`).
 */
export function apiError(status: number, code: string, message: string, details?: unknown): Response {
  const error = {
    code,
    message: boundText(message),
    ...(details === undefined ? {} : { details: boundDetails(details) }),
  };
  return Response.json({ error }, { status });
}

/**
 * A request the client got wrong: its status, stable code and message become the error body.
 * Recognised with `isRequestError` (by name and code), never `instanceof`: the production build
 * can hold two copies of this class, one per chunk, and the agent path bundles a third.
 */
export class RequestError extends Error {
  override readonly name = 'RequestError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/** Whether `error` is a `RequestError` from any copy of this module. */
export function isRequestError(error: unknown): error is RequestError {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as Partial<RequestError>;
  return e.name === 'RequestError' && typeof e.status === 'number' && typeof e.code === 'string';
}

/** Parses a request body already held in memory: a 400 for bad JSON, `emptyAs` (or a 400) for an empty one. */
export function parseJsonText(text: string, options: { emptyAs?: unknown } = {}): unknown {
  if (text.trim() === '') {
    if ('emptyAs' in options) return options.emptyAs;
    throw new RequestError(400, 'INVALID_JSON', 'The request body is empty; send a JSON object.');
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new RequestError(400, 'INVALID_JSON', `The request body is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * Reads a JSON body without ever holding more than `maxBytes` of it: a declared or actual size
 * over the limit is a 413, bad JSON a 400, an empty body a 400 unless `emptyAs` says what it means.
 */
export async function readJsonBody(
  request: Request,
  maxBytes: number,
  options: { emptyAs?: unknown } = {},
): Promise<unknown> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => {});
        throw tooLarge(maxBytes);
      }
      chunks.push(value);
    }
  }
  return parseJsonText(Buffer.concat(chunks).toString('utf8'), options);
}

export function tooLarge(maxBytes: number) {
  return new RequestError(413, 'PAYLOAD_TOO_LARGE', `The request body is larger than ${maxBytes} bytes.`);
}

/** Runs a handler, turning request errors into their responses and anything else into a logged 500. */
export async function handle(run: () => Promise<Response> | Response): Promise<Response> {
  try {
    return await run();
  } catch (error) {
    if (isRequestError(error)) return apiError(error.status, error.code, error.message, error.details);
    console.error('[toolscope] API handler failed:', error);
    return apiError(500, 'INTERNAL_ERROR', 'Toolscope failed to handle the request; the server log has details.');
  }
}
