import { cancelTrace } from '@/lib/api/handlers';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

/** `POST /api/v1/traces/:id/cancel`: see `cancelTrace`. */
export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }) {
  return cancelTrace(request, (await params).id, getToolscope());
}
