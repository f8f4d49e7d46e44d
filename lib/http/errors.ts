import { ApiError, errorEnvelope, toApiError } from '../errors';
import type { HttpContext } from './env';
import { isClientGone } from './read-body';
import { json } from './respond';
import type { RouteSpec } from './route';

/**
 * The chain's last step, for every error any step throws: the one envelope
 * `{ "error": { "code", "message", "details"? } }` with the status of its code (ERROR_STATUS).
 * Anything else is mapped by `toApiError`: the database failing as a whole is a 503
 * STORE_UNAVAILABLE with `Retry-After`, the rest is logged and answered as a 500 that says nothing
 * of it; a client that left mid-body gets nothing (its connection is gone).
 */
export function answerError(error: unknown, c: HttpContext): Response {
  if (isClientGone(error)) {
    c.env?.outgoing?.destroy();
    return new Response(null, { status: 400 });
  }
  const apiError = toApiError(error);
  if (apiError.code === 'INTERNAL_ERROR') console.error('[toolscope] request failed:', apiError.cause ?? error);
  // A write of the request failed for the whole database: said, as the store says its own failures.
  else if (apiError.code === 'STORE_UNAVAILABLE' && apiError.cause) {
    console.error('[toolscope] request failed (database unavailable):', String(apiError.cause));
  }
  return json(c, errorEnvelope(apiError.code, apiError.message, apiError.details), apiError.status, apiError.headers);
}

interface CompiledPattern {
  segments: (string | null)[];
  /** Static segments: the most of them wins (`/traces/export` before `/traces/:id`). */
  statics: number;
  methods: Set<string>;
}

/**
 * Which methods a path answers, from the routes' patterns (GET routes answer HEAD too; every
 * route OPTIONS): the most specific pattern's, so that `DELETE /traces/export` is a 405 of the
 * export route and not a 404 of the trace named "export". Hono's router says only "no match".
 */
export function createMethodTable(routes: readonly Pick<RouteSpec, 'method' | 'path'>[]) {
  const patterns = new Map<string, CompiledPattern>();
  for (const route of routes) {
    let pattern = patterns.get(route.path);
    if (!pattern) {
      const segments = route.path
        .split('/')
        .slice(1)
        .map((s) => (s.startsWith(':') ? null : s));
      pattern = { segments, statics: segments.filter((s) => s !== null).length, methods: new Set() };
      patterns.set(route.path, pattern);
    }
    pattern.methods.add(route.method);
  }
  // The methods as the routes declare them, then HEAD (GET routes answer it), then OPTIONS.
  for (const pattern of patterns.values()) {
    if (pattern.methods.has('GET')) pattern.methods.add('HEAD');
    pattern.methods.add('OPTIONS');
  }
  const compiled = [...patterns.values()];
  /** The `Allow` header of `pathname`, or null when no route has its shape. */
  return function allowOf(pathname: string): string | null {
    const parts = pathname.split('/').slice(1);
    if (parts.length > 1 && parts.at(-1) === '') parts.pop();
    let best: CompiledPattern | null = null;
    for (const pattern of compiled) {
      if (pattern.segments.length !== parts.length || (best && best.statics >= pattern.statics)) continue;
      if (pattern.segments.every((s, i) => (s === null ? parts[i] !== '' : s === parts[i]))) best = pattern;
    }
    return best ? [...best.methods].join(', ') : null;
  };
}

/**
 * The API's answer to a method or path it does not serve, before any handler runs: 404 for a path
 * no route has, 405 with `Allow` for a method its route lacks, 204 with `Allow` for OPTIONS.
 * Null when a route takes the request.
 */
export function unroutable(c: HttpContext, allowOf: (pathname: string) => string | null): Response | null {
  const pathname = c.req.path;
  const allow = allowOf(pathname);
  if (allow === null) {
    throw new ApiError('NOT_FOUND', `No API route ${pathname.slice(0, 200)}. See the README for the API.`);
  }
  const { method } = c.req;
  if (method === 'OPTIONS') return c.body(null, 204, { allow });
  if (allow.split(', ').includes(method)) return null;
  throw new ApiError('METHOD_NOT_ALLOWED', `${pathname.slice(0, 200)} answers ${allow}.`, undefined, { allow });
}
