import type { NextRequest } from 'next/server';
import { SESSION_COOKIE, SESSION_MAX_AGE_S, sessionValue, tokensMatch } from '@/lib/api/access-token';
import { safeNextPath, seeOther } from '@/lib/api/login-redirect';
import { LOGIN_PATH } from '@/lib/api/request-guard';
import { getToolscope } from '@/lib/server/toolscope';

/** Whether the browser reached us over HTTPS (directly or through a proxy): then the cookie is Secure. */
function overHttps(request: NextRequest): boolean {
  return request.nextUrl.protocol === 'https:' || request.headers.get('x-forwarded-proto') === 'https';
}

/**
 * The login form's target. The right token sets the session cookie (http-only, SameSite=Strict)
 * and goes on to where the person was going; a wrong one goes back to the form, saying so.
 */
export async function POST(request: NextRequest) {
  const { token } = getToolscope().config;
  const form = await request.formData().catch(() => null);
  const given = form?.get('token');
  const next = safeNextPath(String(form?.get('next') ?? '/'));
  if (!token) return seeOther(next);
  if (typeof given !== 'string' || !tokensMatch(given.trim(), token)) {
    return seeOther(`${LOGIN_PATH}?${new URLSearchParams({ error: 'wrong-token', next })}`);
  }
  const response = seeOther(next);
  response.cookies.set(SESSION_COOKIE, sessionValue(token), {
    httpOnly: true,
    sameSite: 'strict',
    secure: overHttps(request),
    path: '/',
    maxAge: SESSION_MAX_AGE_S,
  });
  return response;
}
