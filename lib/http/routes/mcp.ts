import type { HttpContext } from '../env';
import { defineRoutes } from '../route';

function serve(c: HttpContext): Promise<Response> {
  return c.get('app').mcp.handle(c.req.raw, c.get('body'), c.get('principal'));
}

/** Toolscope as an MCP server (Streamable HTTP): see `createMcpEndpoint`. */
export default defineRoutes([
  { method: 'GET', path: '/mcp', action: 'calls.run', handle: serve },
  { method: 'POST', path: '/mcp', action: 'calls.run', body: 'json', handle: serve },
  { method: 'DELETE', path: '/mcp', action: 'calls.run', handle: serve },
]);
