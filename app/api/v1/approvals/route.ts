import { getApprovals } from '@/lib/api/approvals';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

/** `GET /api/v1/approvals`: see `getApprovals`. */
export function GET() {
  return getApprovals(getToolscope());
}
