import { exportSession } from '@/lib/api/export-import';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

/** `GET /api/v1/sessions/:id/export`: every call of the session as one export file (see `exportSession`). */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  return exportSession((await params).id, getToolscope());
}
