import { getPolicy, putPolicy } from '@/lib/api/policy';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

/** `GET /api/v1/policy`: see `getPolicy`. */
export function GET() {
  return getPolicy(getToolscope());
}

/** `PUT /api/v1/policy`: see `putPolicy`. */
export function PUT(request: Request) {
  return putPolicy(request, getToolscope());
}
