import { exportTrace } from '@/lib/api/export-import';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

/** `GET /api/v1/traces/:id/export`: the trace as an export file (see `exportTrace`). */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  return exportTrace((await params).id, getToolscope());
}
