import type { UpstreamServerStatus } from '../mcp/upstream/upstream-server';
import type { Toolscope } from '../server/create-toolscope';
import { apiError, handle } from './http';
import { iso } from './serialize';

const NO_STORE = { 'cache-control': 'no-store' };

type UpstreamTs = Pick<Toolscope, 'upstream'>;

/** An upstream MCP server as the API answers it. Its command, URL and headers never leave the server. */
export function mcpServerJson(server: UpstreamServerStatus) {
  return {
    name: server.name,
    transport: server.transport,
    state: server.state,
    protocol_version: server.protocolVersion,
    server_info: server.serverInfo,
    tools: server.tools,
    error: server.error,
    stderr_tail: server.stderrTail,
    connected_at: iso(server.connectedAt),
    next_retry_at: iso(server.nextRetryAt),
  };
}

/** `GET /api/v1/mcp/servers`: every configured upstream MCP server, `{ "servers": [...] }`, in the config's order. */
export function listMcpServers(ts: UpstreamTs): Response {
  return Response.json({ servers: ts.upstream.list().map(mcpServerJson) }, { headers: NO_STORE });
}

/**
 * `POST /api/v1/mcp/servers/:name/reconnect`: drops the server's connection (if any) and connects
 * again at once; answers once that attempt is over, with the server's entry (its state says how
 * it went). 404 for a name the config does not list.
 */
export function reconnectMcpServer(name: string, ts: UpstreamTs): Promise<Response> {
  return handle(async () => {
    const status = await ts.upstream.reconnect(name);
    if (!status) return apiError(404, 'NOT_FOUND', `No MCP server named "${name.slice(0, 64)}" is configured.`);
    return Response.json(mcpServerJson(status), { headers: NO_STORE });
  });
}
