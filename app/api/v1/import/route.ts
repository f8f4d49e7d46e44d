import { postImport } from '@/lib/api/export-import';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

/** `POST /api/v1/import` with an export file as the JSON body (see `postImport`). */
export async function POST(request: Request) {
  return postImport(request, getToolscope());
}
