import { listMcpServers } from '@/lib/api/mcp-servers';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

/** `GET /api/v1/mcp/servers`: see `listMcpServers`. */
export function GET() {
  return listMcpServers(getToolscope());
}
