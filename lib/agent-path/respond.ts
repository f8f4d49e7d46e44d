import type { IncomingMessage, ServerResponse } from 'node:http';

type Headers = Record<string, string | number>;

/** Whether the request came with a body that was not read to its end. */
function hasUnreadBody(req: IncomingMessage): boolean {
  if (req.readableEnded) return false;
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/**
 * Sends `body` as JSON with its length, so the connection stays open for the next request. When
 * the request's body was not read to its end (refused before or while reading it), the connection
 * is closed instead: whatever the client still sends must not be read as the next request.
 */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Headers = {}): void {
  if (res.headersSent) {
    // A stream already under way cannot carry an error any more; ending it is the honest answer.
    res.destroy();
    return;
  }
  const text = JSON.stringify(body);
  const closing = res.req !== undefined && hasUnreadBody(res.req);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...(closing ? { connection: 'close' } : {}),
    ...headers,
  });
  res.end(text);
}

/** Sends the API's error envelope: `{ "error": { "code", "message" } }`. */
export function sendError(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  headers: Headers = {},
): void {
  sendJson(res, status, { error: { code, message } }, headers);
}
