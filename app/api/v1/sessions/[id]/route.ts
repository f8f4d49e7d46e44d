import { deleteSession } from '@/lib/api/delete-traces';
import { getSession } from '@/lib/api/sessions';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  return getSession((await params).id, getToolscope());
}

export async function DELETE(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  return deleteSession((await params).id, getToolscope());
}
