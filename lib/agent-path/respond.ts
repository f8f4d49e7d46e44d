import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { boundText } from '../executor/bound-error';

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
  if (closing && res.socket) lingerBeforeClosing(res.socket);
  res.end(text);
}

/** How long, and how many more body bytes, a refused request's connection is drained before it is dropped. */
const LINGER_MS = 1_000;
const LINGER_BYTES = 16 * 1024 * 1024;

/**
 * A lingering close (as nginx's and Apache's): closing a socket whose client is still sending
 * makes the kernel answer with a reset, and the client's kernel then drops the answer it has not
 * read yet — the 413 that says why. So the socket is half-closed once the answer is written, and
 * what still arrives is read and dropped, for at most `LINGER_MS` and `LINGER_BYTES`, before it is
 * destroyed: memory stays bounded, the client reads its answer.
 */
function lingerBeforeClosing(socket: Socket): void {
  // Node's server calls destroySoon when the answer is written (the answer says `connection: close`).
  socket.destroySoon = () => {
    socket.end();
    let drained = 0;
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
    socket.on('data', (chunk: Buffer) => {
      drained += chunk.length;
      if (drained > LINGER_BYTES) socket.destroy();
    });
    socket.resume();
  };
}

/** Sends the API's error envelope: `{ "error": { "code", "message" } }`, the message within an error's bound. */
export function sendError(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  headers: Headers = {},
): void {
  sendJson(res, status, { error: { code, message: boundText(message) } }, headers);
}
