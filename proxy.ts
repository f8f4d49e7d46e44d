import { type NextRequest, NextResponse } from 'next/server';
import { credentialsOf } from './lib/access/authenticator';
import { forbiddenMessage, reachOf } from './lib/access/roles';
import { errorEnvelope } from './lib/errors';
import { FRAME_HEADERS } from './lib/http/frame-headers';
import { isProgramPath, isPublicRequest, loginRedirect } from './lib/http/middleware/authenticate';
import { guardRequest } from './lib/http/middleware/request-guard';
import { getToolscope } from './lib/server/toolscope';

/**
 * Pages and server actions pass the HTTP layer's first three steps here too (under `npm start`
 * the layer in front of Next has run them already; under `npm run dev` only this does): the
 * guard, the principal (no login: the login page), and the `pages.read` role for a page view.
 * The API, `/mcp` and the login's routes are the HTTP layer's own (`app/api/[[...route]]`).
 */
export function proxy(request: NextRequest) {
  return framed(guardPage(request));
}

/** No other site may frame a page, nor this proxy's own answers (FRAME_HEADERS; next.config.mjs sends them too). */
function framed(response: NextResponse): NextResponse {
  for (const [name, value] of Object.entries(FRAME_HEADERS)) response.headers.set(name, value);
  return response;
}

function guardPage(request: NextRequest): NextResponse {
  const { pathname, search } = request.nextUrl;
  if (isProgramPath(pathname) || pathname.startsWith('/auth/')) return NextResponse.next();
  const ts = getToolscope();
  const refused = guardRequest(request, ts.config);
  if (refused) return NextResponse.json(errorEnvelope(refused.code, refused.message), { status: refused.status });
  if (isPublicRequest(request.method, pathname, request.headers)) return NextResponse.next();
  const auth = ts.access.authenticate(credentialsOf(request.headers));
  const view = request.method === 'GET' || request.method === 'HEAD';
  if (!auth.ok) {
    // Relative, as the HTTP layer's: the browser stays on the host it used.
    if (view)
      return new NextResponse(null, {
        status: 307,
        headers: { location: loginRedirect(pathname, search), 'cache-control': 'no-store' },
      });
    return NextResponse.json(errorEnvelope('UNAUTHENTICATED', 'Log in first.'), { status: 401 });
  }
  const { role } = auth.principal;
  if (view && !request.headers.has('next-action') && !reachOf(role, 'pages.read')) {
    return NextResponse.json(errorEnvelope('FORBIDDEN', forbiddenMessage(role, 'pages.read')), { status: 403 });
  }
  return NextResponse.next();
}

export const config = {
  matcher: '/:path*',
};
