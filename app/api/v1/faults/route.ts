import { createFault, listFaults } from '@/lib/api/faults';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

/** `GET /api/v1/faults`: see `listFaults`. */
export function GET() {
  return listFaults(getToolscope());
}

/** `POST /api/v1/faults`: see `createFault`. */
export function POST(request: Request) {
  return createFault(request, getToolscope());
}
