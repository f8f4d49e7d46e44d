import { deleteSession } from '@/lib/api/delete-traces';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

export async function DELETE(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  return deleteSession((await params).id, getToolscope());
}
