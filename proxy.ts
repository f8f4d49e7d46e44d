import { type NextRequest, NextResponse } from 'next/server';
import { guardRequest } from './lib/api/request-guard';
import { getToolscope } from './lib/server/toolscope';

/**
 * Every request passes the guard first: no DNS rebinding, no cross-site writes, and with
 * `TOOLSCOPE_TOKEN` set, nothing without the token (a page is sent to the login form instead).
 */
export function proxy(request: NextRequest) {
  const verdict = guardRequest(request, getToolscope().config);
  if (verdict.ok) return NextResponse.next();
  if (verdict.location) {
    // Relative, as the agent path's: the browser stays on the host it used.
    return new NextResponse(null, {
      status: verdict.status,
      headers: { location: verdict.location, 'cache-control': 'no-store' },
    });
  }
  return NextResponse.json({ error: { code: verdict.code, message: verdict.message } }, { status: verdict.status });
}

export const config = {
  matcher: '/:path*',
};
