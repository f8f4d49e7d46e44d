import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context } from 'hono';
import type { Principal } from '../access/principal';
import type { Reach } from '../access/roles';
import type { McpEndpoint } from '../mcp/server/mcp-endpoint';

/**
 * What `@hono/node-server` hands the app beside the web request (`npm start`); absent under Next's
 * catch-all route (`npm run dev`), where only the web `Request` exists.
 */
export interface HttpBindings {
  incoming?: IncomingMessage;
  outgoing?: ServerResponse;
}

/** What the app was made with that handlers read (set on every request). */
export interface HttpAppParts {
  /** Toolscope as an MCP server at `/mcp`. */
  mcp: McpEndpoint;
  /** Between an event stream's pings (tests shorten it). */
  heartbeatMs?: number;
}

/** What the middleware chain leaves for the handler. */
export interface HttpVariables {
  app: HttpAppParts;
  /** Who the request acts as (authentication). */
  principal: Principal;
  /** How far the principal may do the route's action: `own` limits it to its own calls (role check). */
  reach: Reach;
  /** The body, read within the route's bound (body limit); null when the request has none. */
  body: Buffer | null;
}

export type HttpEnv = { Bindings: HttpBindings; Variables: HttpVariables };
export type HttpContext = Context<HttpEnv>;
