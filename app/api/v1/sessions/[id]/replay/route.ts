import { replaySession } from '@/lib/api/replay';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

/** `POST /api/v1/sessions/:id/replay`: see `replaySession`. */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  return replaySession(request, (await params).id, getToolscope());
}
