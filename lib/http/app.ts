import type { IncomingMessage, ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono, type MiddlewareHandler } from 'hono';
import { forbiddenMessage, reachOf } from '../access/roles';
import { ApiError } from '../errors';
import { createMcpEndpoint, type McpEndpoint } from '../mcp/server/mcp-endpoint';
import type { Toolscope } from '../server/create-toolscope';
import { boundedForNext } from './bounded-for-next';
import type { HttpAppParts, HttpContext, HttpEnv } from './env';
import { answerError, createMethodTable, unroutable } from './errors';
import { frameHeaders } from './frame-headers';
import { authenticate, isProgramPath } from './middleware/authenticate';
import { authorize } from './middleware/authorize';
import { bodyLimit } from './middleware/body-limit';
import { guardRequest } from './middleware/request-guard';
import type { RouteSpec } from './route';
import { ROUTES } from './routes';

/** Next.js's request handler, for what is not the API (`npm start`'s pages and server actions). */
export type NextHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export interface HttpAppOptions {
  /** Serves pages and server actions behind the same chain: Next's handler in `server/main.ts`. */
  next?: NextHandler;
  /** Between an event stream's pings; default 5 s. */
  heartbeatMs?: number;
  /** Toolscope as an MCP server at `/mcp`; made with the defaults when not given. */
  mcp?: McpEndpoint;
}

export type HttpApp = Hono<HttpEnv> & { parts: HttpAppParts };

/**
 * Toolscope's one HTTP layer: every API route, `/mcp` and the login, served by one Hono app through
 * one middleware chain, mounted by `server/main.ts` (`npm start`, in front of Next's pages) and by
 * the catch-all route `app/api/[[...route]]` (`npm run dev`). Every answer, a page's too, says that
 * no other site may frame it (`frameHeaders`).
 * 1. request guard: Host (DNS rebinding), Origin on writes, a path that is valid percent-encoding;
 * 2. authentication: the principal of the request's key or login, or local mode (`authenticate`);
 * 3. role check: the route's action in the ACTIONS table (`authorize`);
 * 4. body limit: the body the route takes, within its bound (`bodyLimit`);
 * 5. the handler (ROUTES), which returns data or throws an `ApiError`;
 * 6. one error envelope for whatever was thrown (`answerError`); a path no route answers is a
 *    404, or a 405 with `Allow` when another method would do.
 */
export function createHttpApp(ts: Toolscope, options: HttpAppOptions = {}): HttpApp {
  const parts: HttpAppParts = { mcp: options.mcp ?? createMcpEndpoint(ts), heartbeatMs: options.heartbeatMs };
  const app = new Hono<HttpEnv>({ strict: false }) as HttpApp;
  app.parts = parts;
  const allowOf = createMethodTable(ROUTES);
  const limits = (route?: Pick<RouteSpec, 'maxBodyBytes' | 'ownBodyLimit'>) => {
    const { maxBodyBytes, bodyTimeoutMs } = ts.config.limits;
    const own = route?.maxBodyBytes ?? maxBodyBytes;
    return { maxBytes: route?.ownBodyLimit ? own : Math.min(own, maxBodyBytes), timeoutMs: bodyTimeoutMs };
  };
  app.onError(answerError);
  app.notFound((c) => unroutable(c, allowOf) ?? c.body(null, 404));
  app.use('*', frameHeaders());
  app.use('*', requestGuard(ts, parts));
  app.use(
    '*',
    authenticate(() => ts.access),
  );
  // The API's 404, 405 and OPTIONS, from the route table: before Hono's router, which would
  // take `DELETE /traces/export` for the trace named "export".
  app.use('*', async (c, next) => (isProgramPath(c.req.path) ? (unroutable(c, allowOf) ?? next()) : next()));
  for (const route of ROUTES) {
    const chain: MiddlewareHandler<HttpEnv>[] = [];
    if (route.action) chain.push(authorize(route.action));
    chain.push(bodyLimit(route.body, () => limits(route)));
    app.on([route.method], [route.path], ...chain, (c: HttpContext) => route.handle(c, ts));
  }
  const next = options.next;
  if (next) app.all('*', (c) => servePage(c, next, limits()));
  return app;
}

/**
 * The chain's first step: see `guardRequest`; then what no route should see: a GET or HEAD with a
 * body (400), and, under the API, a path that is not valid percent-encoding (400) or that holds
 * dot segments (404: URL parsing would make it another path, maybe a page's).
 */
function requestGuard(ts: Toolscope, parts: HttpAppParts): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    c.set('app', parts);
    const refused = guardRequest(c.req.raw, ts.config);
    if (refused) throw refused;
    const { method } = c.req;
    if ((method === 'GET' || method === 'HEAD') && hasDeclaredBody(c.req.raw.headers)) {
      throw new ApiError('BODY_NOT_ALLOWED', `A ${method} request carries no body.`);
    }
    // As sent: Node's request line, before URL parsing resolved its dot segments.
    const path = rawPath(c.env?.incoming?.url ?? c.req.url);
    if (isProgramPath(path) || path.startsWith('/api/')) checkApiPath(path);
    return next();
  };
}

function hasDeclaredBody(headers: { get(name: string): string | null }): boolean {
  return headers.get('transfer-encoding') !== null || Number(headers.get('content-length') ?? 0) > 0;
}

/** An API path must decode, and hold no `.` or `..` segment (nor a backslash) in any spelling. */
function checkApiPath(path: string): void {
  for (const segment of path.split('/')) {
    let decoded = segment;
    if (segment.includes('%')) {
      try {
        decoded = decodeURIComponent(segment);
      } catch {
        throw new ApiError('BAD_PATH', 'The path is not valid percent-encoding.');
      }
    }
    if (decoded === '.' || decoded === '..' || segment.includes('\\')) {
      throw new ApiError('NOT_FOUND', `No API route ${path.slice(0, 200)}. See the README for the API.`);
    }
  }
}

/** The path of a URL (absolute, or a request line's target) as sent, without its query. */
function rawPath(url: string): string {
  const start = url.startsWith('/') ? 0 : url.indexOf('/', url.indexOf('//') + 2);
  if (start < 0) return '/';
  const end = url.indexOf('?', start);
  return url.slice(start, end < 0 ? undefined : end);
}

/**
 * A page or a server action, handed to Next.js with its body bounded (`boundedForNext`). A page
 * view needs the `pages.read` role; a server action checks its own action's. An API path that no
 * route answers never reaches Next: it is the API's 404 or 405.
 */
async function servePage(
  c: HttpContext,
  next: NextHandler,
  limits: { maxBytes: number; timeoutMs: number },
): Promise<Response> {
  const { incoming, outgoing } = c.env ?? {};
  if (!incoming || !outgoing) throw new Error('pages are served through Node (server/main.ts)');
  const principal = c.get('principal');
  const view = c.req.method === 'GET' || c.req.method === 'HEAD';
  if (principal && view && incoming.headers['next-action'] === undefined && !reachOf(principal.role, 'pages.read')) {
    throw new ApiError('FORBIDDEN', forbiddenMessage(principal.role, 'pages.read'));
  }
  await next(await boundedForNext(incoming, limits), outgoing);
  return RESPONSE_ALREADY_SENT;
}
