import http from 'node:http';
import type { Duplex } from 'node:stream';
import { getRequestListener } from '@hono/node-server';
import type { Limits } from '../config';
import { errorEnvelope } from '../errors';
import type { HttpApp } from './app';
import { FRAME_HEADERS } from './frame-headers';

/** Time for a request's headers to arrive, before its body's `bodyTimeoutMs` starts to count. */
const HEADERS_TIMEOUT_MS = 10_000;

/**
 * A host name no request can have: what `@hono/node-server` builds a request's URL with when it
 * came without a Host header, so that the guard refuses it (421) as it refuses any unknown host.
 */
const NO_HOST = 'no-host.invalid';

/**
 * The Node request listener of the HTTP layer's app, as `@hono/node-server` makes it:
 * - without replacing the global `Request` and `Response` (Next.js, in the same process, extends them);
 * - a request it cannot make a URL of (a malformed request line or Host) is the JSON 400.
 */
export function nodeListener(app: HttpApp): http.RequestListener {
  return getRequestListener(app.fetch, {
    overrideGlobalObjects: false,
    hostname: NO_HOST,
    // A Host that is not a host name (`[::ffff:127.0.0.1]` spelled otherwise, garbage) is the
    // guard's 421, as any host it does not know; anything else it cannot read is a 400.
    errorHandler: (error) =>
      /host/i.test(error instanceof Error ? error.message : '')
        ? Response.json(
            errorEnvelope('HOST_NOT_ALLOWED', 'The Host header does not name a host Toolscope answers for.'),
            {
              status: 421,
              headers: { 'cache-control': 'no-store', ...FRAME_HEADERS },
            },
          )
        : Response.json(errorEnvelope('BAD_REQUEST', 'The request line is not valid.'), {
            status: 400,
            headers: { 'cache-control': 'no-store', ...FRAME_HEADERS },
          }),
  });
}

/**
 * The HTTP server Toolscope listens with, serving `app`. Keep-alive holds connections for the
 * next call of an agent that thinks for a while between calls. Node's own request timeout is the
 * backstop for the requests Next.js reads (the API's body reader has its own, exact one); its
 * checks run every second instead of every 30 s, so that the backstop is one too.
 */
export function createHttpServer(app: HttpApp | undefined, limits: Pick<Limits, 'bodyTimeoutMs'>): http.Server {
  const server = http.createServer({
    keepAliveTimeout: 30_000,
    headersTimeout: HEADERS_TIMEOUT_MS,
    requestTimeout: HEADERS_TIMEOUT_MS + limits.bodyTimeoutMs,
    connectionsCheckingInterval: 1_000,
    // A request without Host is the guard's to refuse (421, JSON), not Node's bare 400.
    requireHostHeader: false,
  });
  if (app) server.on('request', nodeListener(app));
  server.on('clientError', answerClientError);
  return server;
}

/** Node's parser errors, answered in the API's JSON instead of Node's bare status lines. */
const CLIENT_ERRORS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [
    431,
    'HEADERS_TOO_LARGE',
    'The request line and headers are larger than the server reads (16 KiB).',
  ],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'REQUEST_TIMEOUT', 'The request did not arrive in time.'],
  ERR_HTTP_HEADERS_TIMEOUT: [408, 'REQUEST_TIMEOUT', 'The request headers did not arrive in time.'],
};

/**
 * A request Node could not parse (headers too large, a malformed request line, a timeout) is
 * answered with the JSON error envelope and the connection closed, as Node's own handler would
 * but with a body; a socket already gone or mid-answer is only destroyed.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  const answering = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (error.code === 'ECONNRESET' || !socket.writable || answering) {
    socket.destroy();
    return;
  }
  const [status, code, message] = CLIENT_ERRORS[error.code ?? ''] ?? [
    400,
    'BAD_REQUEST',
    'The request is not valid HTTP/1.1.',
  ];
  const text = JSON.stringify({ error: { code, message } });
  const frame = Object.entries(FRAME_HEADERS)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  // The answer to a HEAD has no body. The parser failed before it said the method; the bytes it
  // failed on usually start with the request line (best effort: otherwise the body goes along).
  const head = (error as { rawPacket?: Buffer }).rawPacket?.subarray(0, 5).toString('latin1') === 'HEAD ';
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\ncache-control: no-store\r\n${frame}connection: close\r\n\r\n${head ? '' : text}`,
  );
}
