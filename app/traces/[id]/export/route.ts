import { apiError } from '@/lib/api/http';
import { traceJson } from '@/lib/api/serialize';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

/** `GET /traces/:id/export`: the trace as a JSON download, redacted (never the raw arguments). */
export async function GET(_request: Request, { params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const trace = id.length <= 256 ? getToolscope().store.get(id) : null;
  if (!trace) return apiError(404, 'NOT_FOUND', `No trace with id "${id.slice(0, 256)}".`);
  const safeName = id.replace(/[^A-Za-z0-9_-]/g, '_');
  return new Response(`${JSON.stringify(traceJson(trace), null, 2)}\n`, {
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'content-disposition': `attachment; filename="trace-${safeName}.json"`,
      'cache-control': 'no-store',
    },
  });
}
