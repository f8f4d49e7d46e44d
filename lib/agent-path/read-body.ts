import type { IncomingMessage } from 'node:http';
import { RequestError, tooLarge } from '../api/http';

export interface BodyLimits {
  maxBytes: number;
  /** The whole body must have arrived this long after the handler started reading it. */
  timeoutMs: number;
}

/** The client went away mid-body: nobody is left to answer. */
export const CLIENT_GONE = 'CLIENT_GONE';

/**
 * Reads a request body without ever holding more than `maxBytes` of it, straight from Node's
 * stream (no framework buffers it first):
 * 1. a declared `Content-Length` over the limit is refused (413) before a byte of it is read;
 * 2. a body (chunked or lying about its length) is cut as soon as it passes the limit (413);
 * 3. a body that has not fully arrived within `timeoutMs` is given up (408): a stalled client
 *    holds a socket, never the server.
 * Rejects with a `RequestError`; the caller answers and the connection is closed (see `sendJson`).
 */
export function readBoundedBody(req: IncomingMessage, limits: BodyLimits): Promise<Buffer> {
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
    const onClose = () => settle(new RequestError(400, CLIENT_GONE, 'The client closed the connection mid-body.'));
    const timer = setTimeout(
      () =>
        settle(
          new RequestError(
            408,
            'BODY_TIMEOUT',
            `The request body did not arrive within ${limits.timeoutMs} ms; send it at once.`,
          ),
        ),
      limits.timeoutMs,
    );
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
  });
}
