import { getToolStats } from '@/lib/api/stats';
import { getToolscope } from '@/lib/server/toolscope';

export const dynamic = 'force-dynamic';

/** The segment as the tool page reads it: decoded, or as it came when it is not valid escaping. */
function decodeName(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export async function GET(request: Request, { params }: { params: Promise<{ name: string }> }) {
  return getToolStats(request, decodeName((await params).name), getToolscope());
}
