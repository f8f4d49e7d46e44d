import type { MiddlewareHandler } from 'hono';
import type { HttpEnv } from './env';

/**
 * Sent with every page and every API answer: no other site may show Toolscope in a frame (a
 * framed Approvals page is one click and `a` from approving a call). Only `frame-ancestors` and two
 * directives that no page needs; no `script-src`, which Next's inline scripts would break.
 * `next.config.mjs` sends the same pair for what Next serves (its `headers()`; kept equal by a test).
 */
export const FRAME_HEADERS = {
  'content-security-policy': "frame-ancestors 'none'; base-uri 'self'; object-src 'none'",
  'x-frame-options': 'DENY',
} as const;

/**
 * The chain's outermost step: FRAME_HEADERS on whatever the app answers, errors included. Behind
 * `@hono/node-server` they go on Node's response first, which every answer is written to: the
 * API's JSON (`json` writes there directly), a page Next.js writes, and a web `Response` (its
 * headers are merged with these). Without it (`npm run dev`'s catch-all route) they go on the
 * `Response`; one whose headers cannot change (one a `fetch` returned) is copied first.
 */
export function frameHeaders(): MiddlewareHandler<HttpEnv> {
  return async (c, next) => {
    const outgoing = c.env?.outgoing;
    if (outgoing) {
      for (const [name, value] of Object.entries(FRAME_HEADERS)) outgoing.setHeader(name, value);
      return next();
    }
    await next();
    try {
      for (const [name, value] of Object.entries(FRAME_HEADERS)) c.res.headers.set(name, value);
    } catch {
      c.res = new Response(c.res.body, c.res);
      for (const [name, value] of Object.entries(FRAME_HEADERS)) c.res.headers.set(name, value);
    }
  };
}
