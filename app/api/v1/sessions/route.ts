import { listSessions } from '@/lib/api/sessions';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

export function GET(request: Request) {
  return listSessions(request, getToolscope());
}
