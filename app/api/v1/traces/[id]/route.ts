import { deleteTrace } from '@/lib/api/delete-traces';
import { getTrace } from '@/lib/api/handlers';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  return getTrace((await params).id, getToolscope());
}

export async function DELETE(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  return deleteTrace((await params).id, getToolscope());
}
