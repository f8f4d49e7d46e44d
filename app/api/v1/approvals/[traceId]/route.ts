import { decideApproval } from '@/lib/api/approvals';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

/** `POST /api/v1/approvals/:trace_id`: see `decideApproval`. */
export async function POST(request: Request, { params }: { params: Promise<{ traceId: string }> }) {
  return decideApproval(request, (await params).traceId, getToolscope());
}
