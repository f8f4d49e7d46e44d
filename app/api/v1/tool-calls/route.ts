import { postToolCalls } from '@/lib/api/handlers';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

/**
 * `POST /api/v1/tool-calls` under `next dev`; `npm start` serves it from the agent path
 * (lib/agent-path), which answers before Next.js sees the request.
 */
export function POST(request: Request) {
  return postToolCalls(request, getToolscope());
}
