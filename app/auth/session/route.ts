import type { NextRequest } from 'next/server';
import { carriesToken } from '@/lib/api/access-token';
import { getToolscope } from '@/lib/server/toolscope';

/**
 * Whether this request carries the token, for the login page: a person who followed a link from
 * another site arrives without the SameSite=Strict cookie, and the page's own same-site request
 * here finds it and sends them on.
 */
export function GET(request: NextRequest) {
  const { token } = getToolscope().config;
  const signedIn = token === null || carriesToken(request.headers, token);
  return Response.json({ signed_in: signedIn }, { headers: { 'cache-control': 'no-store' } });
}
