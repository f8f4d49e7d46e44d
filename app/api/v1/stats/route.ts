import { getStats } from '@/lib/api/stats';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

export function GET(request: Request) {
  return getStats(request, getToolscope());
}
