import type { z } from 'zod';
import { ApiError, zodMessage } from '../errors';
import type { HttpContext } from './env';

/** Parses text already read within its bound: 400 INVALID_JSON when it is not JSON. */
export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ApiError('INVALID_JSON', `The request body is not valid JSON: ${(error as Error).message}`);
  }
}

/** The request's JSON body: 400 when it is empty or not JSON. */
export function jsonBody(c: HttpContext): unknown {
  const body = c.get('body');
  if (body === null || body.length === 0 || isBlank(body)) {
    throw new ApiError('INVALID_JSON', 'The request body is empty; send a JSON object.');
  }
  return parseJsonText(body.toString('utf8'));
}

/** The request's JSON body, or `undefined` when it sent none. */
export function optionalJsonBody(c: HttpContext): unknown {
  const body = c.get('body');
  if (body === null || isBlank(body)) return undefined;
  return parseJsonText(body.toString('utf8'));
}

function isBlank(body: Buffer): boolean {
  for (const byte of body) if (byte !== 0x20 && byte !== 0x0a && byte !== 0x0d && byte !== 0x09) return false;
  return true;
}

/** Validates `value` against `schema`: the data, or 400 `code` naming the first few fields. */
export function parseWith<T>(schema: z.ZodType<T>, value: unknown, code: 'INVALID_REQUEST' | 'INVALID_QUERY'): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new ApiError(code, zodMessage(parsed.error));
  return parsed.data;
}

/** The query string as a plain object, a repeated key taking its last value (`?limit=1&limit=x` is `x`). */
export function queryOf(c: HttpContext): Record<string, string> {
  return Object.fromEntries(new URL(c.req.url).searchParams);
}

/** A path parameter, decoded (a segment that is not valid escaping stays as sent). */
export function paramOf(c: HttpContext, name: string): string {
  return c.req.param(name) ?? '';
}
