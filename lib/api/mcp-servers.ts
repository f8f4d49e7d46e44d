import type { UpstreamServerStatus } from '../mcp/upstream/upstream-server';
import { iso } from './serialize';

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
    relabels: server.relabels.map((relabel) => ({
      tool: relabel.tool,
      at: new Date(relabel.at).toISOString(),
      changes: relabel.changes,
      annotations_before: relabel.before,
      annotations_after: relabel.after,
      side_effect_before: relabel.sideEffectBefore,
      side_effect_after: relabel.sideEffectAfter,
    })),
  };
}
