import { reconnectMcpServer } from '@/lib/api/mcp-servers';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

type Params = { params: Promise<{ name: string }> };

/** `POST /api/v1/mcp/servers/:name/reconnect`: see `reconnectMcpServer`. */
export async function POST(_request: Request, { params }: Params) {
  return reconnectMcpServer((await params).name, getToolscope());
}
