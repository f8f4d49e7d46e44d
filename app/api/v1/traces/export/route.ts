import { exportTraces } from '@/lib/api/export-traces';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

export function GET(request: Request) {
  return exportTraces(request, getToolscope());
}
