import { deleteFault, getFault, updateFault } from '@/lib/api/faults';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

type Params = { params: Promise<{ id: string }> };

/** `GET /api/v1/faults/:id`: see `getFault`. */
export async function GET(_request: Request, { params }: Params) {
  return getFault((await params).id, getToolscope());
}

/** `PATCH /api/v1/faults/:id`: see `updateFault`. */
export async function PATCH(request: Request, { params }: Params) {
  return updateFault(request, (await params).id, getToolscope());
}

/** `DELETE /api/v1/faults/:id`: see `deleteFault`. */
export async function DELETE(_request: Request, { params }: Params) {
  return deleteFault((await params).id, getToolscope());
}
