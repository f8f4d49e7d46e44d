import { listTools } from '@/lib/api/handlers';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

export function GET(request: Request) {
  return listTools(request, getToolscope());
}
