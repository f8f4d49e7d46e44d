import { NextResponse } from 'next/server';

/**
 * Where to go after logging in: `next` when it is a path on this server, else the traces.
 * Anything that could leave the site (`//host`, `/\host`, `https://…`) is dropped.
 * @example safeNextPath('/traces/abc?x=1') // '/traces/abc?x=1'
 */
export function safeNextPath(next: string | null | undefined): string {
  if (!next?.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  if (next === '/login' || next.startsWith('/login?') || next.startsWith('/auth/')) return '/';
  return next;
}

/**
 * A 303 to a path on this server, as a relative `Location`: the browser stays on the host it
 * used (Next's own URL would name the host the server was started with, e.g. `localhost`).
 */
export function seeOther(pathname: string): NextResponse {
  return new NextResponse(null, { status: 303, headers: { location: pathname, 'cache-control': 'no-store' } });
}
