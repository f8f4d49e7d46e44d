import type { IncomingMessage, ServerResponse } from 'node:http';
import { isRequestError } from '../api/http';
import { guardRequest } from '../api/request-guard';
import { createMcpEndpoint, type McpEndpoint } from '../mcp/server/mcp-endpoint';
import type { Toolscope } from '../server/create-toolscope';
import { allowsMethod, type LeanRouteName, matchApiRoute } from './api-routes';
import { boundedForNext } from './bounded-for-next';
import { serveEvents } from './events-route';
import { type BodyLimits, CLIENT_GONE } from './read-body';
import { sendError } from './respond';
import { serveToolCalls } from './tool-calls-route';

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export interface AgentHandlerOptions {
  ts: Toolscope;
  /** Everything that is not an agent route: Next.js's request handler in `server/main.ts`. */
  next: RequestListener;
  heartbeatMs?: number;
  /** Toolscope as an MCP server at `/mcp` (`lib/mcp/server`); made with the defaults when not given. */
  mcp?: McpEndpoint;
}

type LeanRoute = (req: IncomingMessage, res: ServerResponse, query: string) => void | Promise<void>;

/** The guard reads headers through `get`, as on a web `Request`; Node's are a lower-cased record. */
function headerReader(req: IncomingMessage) {
  return {
    get(name: string): string | null {
      const value = req.headers[name];
      return value === undefined ? null : Array.isArray(value) ? value.join(', ') : value;
    },
  };
}

/** The headers by which Next's router asks for React Server Components (`rsc` makes Next redirect a request without `_rsc`). */
const RSC_REQUEST_HEADERS = [
  'rsc',
  'next-router-state-tree',
  'next-router-prefetch',
  'next-router-segment-prefetch',
  'next-url',
];

/**
 * The agent path: one Node request listener in front of Next.js, in the same process and with the
 * same Toolscope instance. A hand-written dispatcher rather than a router package: it serves two
 * fixed paths and answers 404/405/400 from the list of API routes, a table lookup a router would
 * only wrap (and it adds no dependency to keep current).
 * 1. The guard (`lib/api/request-guard.ts`, the proxy's too) runs first, for every request: host,
 *    origin and, when `TOOLSCOPE_TOKEN` is set, the token (a page without it is sent to /login).
 * 2. Paths under `/api/` are looked up in `API_ROUTES`: unknown → 404, bad percent-encoding → 400,
 *    a method the route lacks → 405 with `Allow`, OPTIONS → 204 with `Allow`, all JSON.
 * 3. `POST /api/v1/tool-calls` and `GET /api/v1/events` are served here, and `/mcp` (Toolscope as
 *    an MCP server, Streamable HTTP); the rest goes to `next`, its body bounded (`boundedForNext`:
 *    Next's proxy would buffer tens of megabytes first) and an API path without its trailing slash.
 * Anything a handler throws is one JSON error: a `RequestError` by its code, else a logged 500.
 */
export function createAgentHandler(options: AgentHandlerOptions): RequestListener {
  const { ts, next } = options;
  const mcp = options.mcp ?? createMcpEndpoint(ts);
  const lean: Record<LeanRouteName, LeanRoute> = {
    'tool-calls': (req, res) => serveToolCalls(req, res, ts),
    events: (req, res, query) => serveEvents(req, res, ts, query, { heartbeatMs: options.heartbeatMs }),
  };

  const fail = (res: ServerResponse, error: unknown) => {
    if (isRequestError(error)) {
      if (error.code === CLIENT_GONE) res.destroy();
      else sendError(res, error.status, error.code, error.message);
      return;
    }
    console.error('[toolscope] request failed:', error);
    sendError(res, 500, 'INTERNAL_ERROR', 'Toolscope failed to handle the request; the server log has details.');
  };

  const dispatch = (req: IncomingMessage, res: ServerResponse): void | Promise<void> => {
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const verdict = guardRequest({ method, url, headers: headerReader(req) }, ts.config);
    if (!verdict.ok) {
      if (verdict.location) {
        res.writeHead(verdict.status, { location: verdict.location, 'cache-control': 'no-store' });
        res.end();
        return;
      }
      return sendError(res, verdict.status, verdict.code, verdict.message);
    }
    const q = url.indexOf('?');
    const pathname = q < 0 ? url : url.slice(0, q);
    if (pathname === '/mcp') return mcp.handle(req, res);
    const { maxBodyBytes, bodyTimeoutMs } = ts.config.limits;
    if (pathname !== '/api' && !pathname.startsWith('/api/')) {
      return handOn(req, res, { maxBytes: maxBodyBytes, timeoutMs: bodyTimeoutMs });
    }
    const match = matchApiRoute(pathname);
    if (match.kind === 'bad-encoding') {
      return sendError(res, 400, 'BAD_PATH', 'The path is not valid percent-encoding.');
    }
    if (match.kind === 'not-found') {
      return sendError(res, 404, 'NOT_FOUND', `No API route ${pathname.slice(0, 200)}. See the README for the API.`);
    }
    if (!allowsMethod(match, method)) {
      return sendError(res, 405, 'METHOD_NOT_ALLOWED', `${pathname.slice(0, 200)} answers ${match.allow}.`, {
        allow: match.allow,
      });
    }
    if (method === 'OPTIONS') {
      res.writeHead(204, { allow: match.allow });
      res.end();
      return;
    }
    if ('lean' in match.route) return lean[match.route.lean](req, res, q < 0 ? '' : url.slice(q + 1));
    // Next answers a trailing slash with a text redirect: the route is served as without it.
    if (pathname.length > 1 && pathname.endsWith('/')) req.url = `${pathname.slice(0, -1)}${q < 0 ? '' : url.slice(q)}`;
    // And a request that says it is a React Server Components one (`rsc: 1`) without its
    // cache-busting `_rsc` parameter with an empty redirect: no API route renders components.
    for (const name of RSC_REQUEST_HEADERS) delete req.headers[name];
    const maxBytes = 'maxBodyBytes' in match.route ? match.route.maxBodyBytes : maxBodyBytes;
    return handOn(req, res, { maxBytes, timeoutMs: bodyTimeoutMs });
  };

  /** To Next.js, its body bounded first (`boundedForNext`). */
  const handOn = async (req: IncomingMessage, res: ServerResponse, limits: BodyLimits) => {
    await next(await boundedForNext(req, limits), res);
  };

  return (req, res) => {
    try {
      const pending = dispatch(req, res);
      if (pending) pending.catch((error: unknown) => fail(res, error));
    } catch (error) {
      fail(res, error);
    }
  };
}
