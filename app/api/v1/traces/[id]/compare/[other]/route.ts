import { getTraceComparison } from '@/lib/api/replay';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

/** `GET /api/v1/traces/:id/compare/:other`: see `getTraceComparison`. */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string; other: string }> }) {
  const { id, other } = await params;
  return getTraceComparison(id, other, getToolscope());
}
