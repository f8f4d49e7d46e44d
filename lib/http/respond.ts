import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { HttpContext } from './env';

type Headers = Record<string, string>;

/** Whether the request came with a body that was not read to its end. */
function hasUnreadBody(req: IncomingMessage): boolean {
  if (req.readableEnded) return false;
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

/**
 * Answers with `body` as JSON, `cache-control: no-store` and its length, so the connection stays
 * open for the next request. Every JSON answer of the API goes through here.
 * - Behind `@hono/node-server` it is written straight to Node's response: a web `Response` would
 *   be built and read back as a stream, several times the cost of the write on the agents' path.
 * - When the request's body was not read to its end (refused before or while reading it), the
 *   connection is closed after a lingering drain: whatever the client still sends must not be
 *   read as the next request, and must not reset the socket before the client has the answer.
 * @example return json(c, { deleted: 1 });
 */
export function json(c: HttpContext, body: unknown, status = 200, headers: Headers = {}): Response {
  const out = c.env?.outgoing;
  if (!out) {
    return c.json(body, status as 200, { 'cache-control': 'no-store', ...headers });
  }
  writeJson(out, status, body, headers);
  return RESPONSE_ALREADY_SENT;
}

/** The Node half of `json`: one `writeHead` and one `end`. */
export function writeJson(res: ServerResponse, status: number, body: unknown, headers: Headers = {}): void {
  if (res.headersSent) {
    // A stream already under way cannot carry an answer any more; ending it is the honest one.
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
  res.end(res.req?.method === 'HEAD' ? undefined : text);
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
