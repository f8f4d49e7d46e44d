import { getHttpApp } from '@/lib/http/shared-app';

export const dynamic = 'force-dynamic';

/** Where next.config.mjs rewrites `/mcp` and `/auth/*` to under `npm run dev`. */
const REWRITTEN = '/api/_rewrite/';

/** The request as it was sent: a rewritten one gets its own path back. */
function asSent(request: Request): Request {
  const url = new URL(request.url);
  if (!url.pathname.startsWith(REWRITTEN)) return request;
  url.pathname = `/${url.pathname.slice(REWRITTEN.length)}`;
  const init: RequestInit & { duplex: 'half' } = {
    method: request.method,
    headers: request.headers,
    body: request.body,
    signal: request.signal,
    duplex: 'half',
  };
  return new Request(url, init);
}

/**
 * Every `/api/` request under `npm run dev` (and `/mcp` and `/auth/*`, rewritten here), answered
 * by the one HTTP layer (`lib/http`): the same app `npm start` mounts in front of Next, so dev and
 * production serve the same API.
 */
function serve(request: Request): Promise<Response> {
  return Promise.resolve(getHttpApp().fetch(asSent(request)));
}

export { serve as DELETE, serve as GET, serve as HEAD, serve as OPTIONS, serve as PATCH, serve as POST, serve as PUT };
