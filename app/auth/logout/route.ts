import { type NextRequest, NextResponse } from 'next/server';
import { SESSION_COOKIE } from '@/lib/api/access-token';
import { LOGIN_PATH } from '@/lib/api/request-guard';

/** The header's "Log out": clears the session cookie and shows the login form. */
export function POST(request: NextRequest) {
  const response = NextResponse.redirect(new URL(LOGIN_PATH, request.nextUrl), 303);
  response.cookies.set(SESSION_COOKIE, '', { httpOnly: true, sameSite: 'strict', path: '/', maxAge: 0 });
  return response;
}
