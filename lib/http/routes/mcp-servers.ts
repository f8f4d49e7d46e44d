import { mcpServerJson } from '../../api/mcp-servers';
import { ApiError } from '../../errors';
import { audit } from '../audit';
import { paramOf } from '../request';
import { json } from '../respond';
import { defineRoutes } from '../route';

export default defineRoutes([
  {
    /** `GET /api/v1/mcp/servers`: every configured upstream MCP server, `{ "servers": [...] }`, in the config's order. */
    method: 'GET',
    path: '/api/v1/mcp/servers',
    action: 'mcp.servers.read',
    handle: (c, ts) => json(c, { servers: ts.upstream.list().map(mcpServerJson) }),
  },
  {
    /**
     * `POST /api/v1/mcp/servers/:name/reconnect`: drops the server's connection (if any) and connects
     * again at once; answers once that attempt is over, with the server's entry (its state says how
     * it went). 404 for a name the config does not list.
     */
    method: 'POST',
    path: '/api/v1/mcp/servers/:name/reconnect',
    action: 'mcp.servers.reconnect',
    async handle(c, ts) {
      const name = paramOf(c, 'name');
      const status = await ts.upstream.reconnect(name);
      if (!status) throw new ApiError('NOT_FOUND', `No MCP server named "${name.slice(0, 64)}" is configured.`);
      audit(c, ts, 'mcp_server.reconnected', name, { state: status.state, error: status.error });
      return json(c, mcpServerJson(status));
    },
  },
]);
