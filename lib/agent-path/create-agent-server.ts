import http from 'node:http';
import type { Limits } from '../config';
import type { RequestListener } from './agent-handler';

/** Time for a request's headers to arrive, before its body's `bodyTimeoutMs` starts to count. */
const HEADERS_TIMEOUT_MS = 10_000;

/**
 * The HTTP server the agent path listens with. Keep-alive holds connections for the next call
 * of an agent that thinks for a while between calls. Node's own request timeout is the backstop
 * for the routes Next.js reads (the agent path's body reader has its own, exact one); its checks
 * run every second instead of every 30 s, so that the backstop is one too.
 */
export function createAgentServer(
  listener: RequestListener | undefined,
  limits: Pick<Limits, 'bodyTimeoutMs'>,
): http.Server {
  const server = http.createServer({
    keepAliveTimeout: 30_000,
    headersTimeout: HEADERS_TIMEOUT_MS,
    requestTimeout: HEADERS_TIMEOUT_MS + limits.bodyTimeoutMs,
    connectionsCheckingInterval: 1_000,
  });
  if (listener) server.on('request', listener);
  return server;
}
