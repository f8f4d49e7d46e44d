import http from 'node:http';
import net from 'node:net';
import zlib from 'node:zlib';

/** One HTTP answer as the hardening tests read it: the raw text, whatever its type. */
export interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The body as text; for an event stream, only what arrived before it was dropped. */
  text: string;
}

export interface RawRequest {
  method: string;
  /** Path and query as sent, byte for byte (any percent-encoding, broken or not). */
  path: string;
  headers?: Record<string, string | string[]>;
  body?: string | Buffer;
}

/**
 * Sends a request with Node's own client, which, unlike `fetch`, passes odd methods, repeated
 * headers and broken percent-encoding through as they are. An event stream is read until its
 * first bytes (or 200 ms) and then dropped: it would never end.
 */
export function rawRequest(
  port: number,
  request: RawRequest,
  agent?: http.Agent,
  timeoutMs = 15_000,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: request.method, path: request.path, headers: request.headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        const done = () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: decoded(Buffer.concat(chunks), res.headers['content-encoding']).toString('utf8'),
          });
        if (String(res.headers['content-type']).startsWith('text/event-stream')) {
          const stop = () => {
            res.destroy();
            done();
          };
          res.once('data', (chunk: Buffer) => {
            chunks.push(chunk);
            stop();
          });
          setTimeout(stop, 200).unref();
          return;
        }
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', done);
        res.on('error', reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(request.body);
  });
}

/**
 * The body as sent before its content-encoding (a request that asked for gzip or br may get it,
 * from Next's compression or the event stream's); what cannot be decoded is left as it came.
 */
function decoded(body: Buffer, encoding: string | undefined): Buffer {
  const partial = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
  try {
    switch (encoding?.trim().toLowerCase()) {
      case 'gzip':
      case 'x-gzip':
        return zlib.gunzipSync(body, partial);
      case 'deflate':
        return zlib.inflateSync(body, partial);
      case 'br':
        return zlib.brotliDecompressSync(body, { finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
      default:
        return body;
    }
  } catch {
    return body;
  }
}

/**
 * Writes `head` (request line and headers, CRLF-separated, without the blank line) on a fresh
 * socket and returns everything the server sent until it closed the connection: for requests a
 * client library would refuse to send, or to see what comes back before a body is sent.
 */
export function socketExchange(
  port: number,
  head: string,
  options: { body?: string; timeoutMs?: number } = {},
): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(received);
    }, options.timeoutMs ?? 5_000);
    socket.on('data', (chunk) => (received += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
    socket.write(`${head}\r\n\r\n${options.body ?? ''}`);
  });
}

/** The status code of a raw HTTP answer (`HTTP/1.1 413 ...`). */
export function statusOf(raw: string): number {
  return Number(raw.slice(9, 12));
}

/** The body of a raw HTTP answer (after the blank line; a chunked one is not decoded). */
export function bodyOf(raw: string): string {
  const at = raw.indexOf('\r\n\r\n');
  return at < 0 ? '' : raw.slice(at + 4);
}

/**
 * Whether an answer is the API's JSON: `application/json`, parseable, and when not a success the
 * error envelope `{ error: { code, message } }` (or, from `/mcp`, a JSON-RPC error). Returns what is
 * wrong, or null.
 */
export function jsonAnswerProblem(answer: RawAnswer, options: { rpc?: boolean } = {}): string | null {
  const type = String(answer.headers['content-type'] ?? '');
  if (!type.startsWith('application/json'))
    return `${answer.status} with content-type ${JSON.stringify(type)}: ${answer.text.slice(0, 100)}`;
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return `the body is not JSON: ${answer.text.slice(0, 200)}`;
  }
  if (answer.status < 300) return null;
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  if (options.rpc && error && typeof error.code === 'number' && typeof error.message === 'string') return null;
  if (!error || typeof error.code !== 'string' || typeof error.message !== 'string') {
    return `not the error envelope: ${answer.text.slice(0, 200)}`;
  }
  return null;
}
