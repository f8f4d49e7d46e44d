import { disableAllFaults } from '@/lib/api/faults';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

/** `POST /api/v1/faults/disable-all`: see `disableAllFaults`. */
export function POST() {
  return disableAllFaults(getToolscope());
}
