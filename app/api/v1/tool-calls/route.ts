import { postToolCalls } from '@/lib/api/handlers';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

export function POST(request: Request) {
  return postToolCalls(request, getToolscope());
}
