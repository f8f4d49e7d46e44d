import { SESSION_COOKIE } from '@/lib/api/access-token';
import { seeOther } from '@/lib/api/login-redirect';
import { LOGIN_PATH } from '@/lib/api/request-guard';

/** The header's "Log out": clears the session cookie and shows the login form. */
export function POST() {
  const response = seeOther(LOGIN_PATH);
  response.cookies.set(SESSION_COOKIE, '', { httpOnly: true, sameSite: 'strict', path: '/', maxAge: 0 });
  return response;
}
