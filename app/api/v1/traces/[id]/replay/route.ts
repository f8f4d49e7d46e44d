import { replayTrace } from '@/lib/api/replay';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

/** `POST /api/v1/traces/:id/replay`: see `replayTrace`. */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  return replayTrace(request, (await params).id, getToolscope());
}
