import { getSessionComparison } from '@/lib/api/replay';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

/** `GET /api/v1/sessions/:id/compare/:other`: see `getSessionComparison`. */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string; other: string }> }) {
  const { id, other } = await params;
  return getSessionComparison(id, other, getToolscope());
}
