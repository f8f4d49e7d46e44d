import { resetFaults } from '@/lib/api/faults';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

/** `POST /api/v1/faults/reset`: see `resetFaults`. */
export function POST() {
  return resetFaults(getToolscope());
}
