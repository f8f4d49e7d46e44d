import type { IncomingMessage } from 'node:http';
import { ApiError } from '../errors';

export interface BodyLimits {
  maxBytes: number;
  /** The whole body must have arrived this long after reading it started. */
  timeoutMs: number;
}

/** The client went away mid-body: nobody is left to answer (the HTTP layer drops the response). */
export const CLIENT_GONE = 'client-gone';

export function tooLarge(maxBytes: number): ApiError {
  return new ApiError('PAYLOAD_TOO_LARGE', `The request body is larger than ${maxBytes} bytes.`);
}

const timedOut = (limits: BodyLimits) =>
  new ApiError('BODY_TIMEOUT', `The request body did not arrive within ${limits.timeoutMs} ms; send it at once.`);

/** A read that stopped because the client left: marked so the error handler answers nobody. */
export function clientGone(): ApiError {
  const error = new ApiError('BAD_REQUEST', 'The client closed the connection mid-body.');
  (error as { cause?: unknown }).cause = CLIENT_GONE;
  return error;
}

export function isClientGone(error: unknown): boolean {
  return (error as { cause?: unknown } | null)?.cause === CLIENT_GONE;
}

/**
 * Reads a request body without ever holding more than `maxBytes` of it, straight from Node's
 * stream (no framework buffers it first):
 * 1. a declared `Content-Length` over the limit is refused (413) before a byte of it is read;
 * 2. a body (chunked or lying about its length) is cut as soon as it passes the limit (413);
 * 3. a body that has not fully arrived within `timeoutMs` is given up (408): a stalled client
 *    holds a socket, never the server.
 * Rejects with an `ApiError`; the answer closes the connection (see `respond.ts`).
 */
export function readNodeBody(req: IncomingMessage, limits: BodyLimits): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (declared > limits.maxBytes) return Promise.reject(tooLarge(limits.maxBytes));
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (error: Error | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      if (error) {
        chunks.length = 0;
        // Whatever else arrives is dropped unread until the connection closes after the answer.
        req.resume();
        reject(error);
      } else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limits.maxBytes) settle(tooLarge(limits.maxBytes));
      else chunks.push(chunk);
    };
    const onEnd = () => settle(null);
    const onClose = () => settle(clientGone());
    const timer = setTimeout(() => settle(timedOut(limits)), limits.timeoutMs);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
  });
}

/** The same bound on a web `Request`'s body (Next's route handler under `npm run dev`). */
export async function readWebBody(request: Request, limits: BodyLimits): Promise<Buffer> {
  if (Number(request.headers.get('content-length')) > limits.maxBytes) throw tooLarge(limits.maxBytes);
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timedOut(limits)), limits.timeoutMs);
  });
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), deadline]);
      if (done) break;
      size += value.byteLength;
      if (size > limits.maxBytes) throw tooLarge(limits.maxBytes);
      chunks.push(value);
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return Buffer.concat(chunks, size);
}
