import type { MiddlewareHandler } from 'hono';
import { ApiError } from '../../errors';
import type { HttpEnv } from '../env';
import { readNodeBody, readWebBody } from '../read-body';
import type { BodyKind } from '../route';
import { isJsonType, NOT_JSON_MESSAGE } from './request-guard';

/** Whether a request says it has a body (a length above 0, or chunks). */
function hasBody(headers: { get(name: string): string | null }): boolean {
  return headers.get('transfer-encoding') !== null || Number(headers.get('content-length') ?? 0) > 0;
}

/**
 * The body limit, the chain's fourth step: reads the body the route takes, never more than
 * `maxBytes` of it nor for longer than `timeoutMs` (`read-body.ts`), into `c.var.body`. A body
 * that must be JSON and is not declared so is refused (415) before a byte of it is read.
 */
export function bodyLimit(kind: BodyKind | undefined, limits: () => { maxBytes: number; timeoutMs: number }) {
  const handler: MiddlewareHandler<HttpEnv> = async (c, next) => {
    const headers = c.req.raw.headers;
    const incoming = c.env?.incoming;
    // A web Request (Next's route, a test's) made from a string or stream declares no length.
    const present = incoming ? hasBody(headers) : c.req.raw.body !== null;
    if (kind === undefined || (!present && kind !== 'json')) {
      c.set('body', null);
      return next();
    }
    if (kind !== 'form' && (kind === 'json' || present) && !isJsonType(headers.get('content-type'))) {
      throw new ApiError('UNSUPPORTED_MEDIA_TYPE', NOT_JSON_MESSAGE);
    }
    const body = present
      ? await (incoming ? readNodeBody(incoming, limits()) : readWebBody(c.req.raw, limits()))
      : null;
    c.set('body', body);
    return next();
  };
  return handler;
}
