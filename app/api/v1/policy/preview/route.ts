import { previewPolicy } from '@/lib/api/policy';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

/** `POST /api/v1/policy/preview`: see `previewPolicy`. */
export function POST(request: Request) {
  return previewPolicy(request, getToolscope());
}
