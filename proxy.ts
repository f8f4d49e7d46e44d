import { type NextRequest, NextResponse } from 'next/server';
import { guardRequest } from './lib/api/request-guard';
import { getToolscope } from './lib/server/toolscope';

/** Every request passes the guard first: no DNS rebinding, no cross-site writes. */
export function proxy(request: NextRequest) {
  const verdict = guardRequest(request, getToolscope().config);
  if (verdict.ok) return NextResponse.next();
  return NextResponse.json({ error: { code: verdict.code, message: verdict.message } }, { status: verdict.status });
}

export const config = {
  matcher: '/:path*',
};
