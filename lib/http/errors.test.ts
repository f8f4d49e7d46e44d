import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../config';
import { createTempDataDir } from '../db/test-database';
import { ApiError, ERROR_STATUS, errorEnvelope, isApiError, toApiError } from '../errors';
import { MAX_ERROR_DETAILS_CHARS, MAX_ERROR_MESSAGE_CHARS } from '../executor/bound-error';
import { createToolscope, type Toolscope } from '../server/create-toolscope';
import { createHttpApp, type HttpApp } from './app';
import type { HttpEnv } from './env';
import { answerError } from './errors';
import { callApp } from './testing/call-app';

/**
 * The API's one error envelope, `{ "error": { "code", "message", "details"? } }`, with the status
 * of its code and within an error's bounds whatever its message and details quote: built by
 * `errorEnvelope`, answered by `answerError` for whatever a step of the chain throws.
 */
const temp = createTempDataDir('toolscope-errors-');
let ts: Toolscope;
let app: HttpApp;

beforeAll(() => {
  ts = createToolscope(loadConfig({ TOOLSCOPE_DATA_DIR: 'data' }, temp.dir));
  app = createHttpApp(ts);
});

afterAll(async () => {
  await app.parts.mcp.close();
  ts.close();
  temp.remove();
});

describe('errorEnvelope', () => {
  it('carries a small error as it is, without details when there are none', () => {
    expect(errorEnvelope('INVALID_RULES', 'a: bad', { errors: [{ path: 'a', message: 'bad' }] })).toEqual({
      error: { code: 'INVALID_RULES', message: 'a: bad', details: { errors: [{ path: 'a', message: 'bad' }] } },
    });
    expect(errorEnvelope('NOT_FOUND', 'gone')).toEqual({ error: { code: 'NOT_FOUND', message: 'gone' } });
  });

  it('cuts a 5 MB message and 100,000 field errors, each cut marked', () => {
    const errors = Array.from({ length: 100_000 }, (_, i) => ({ path: `rules.${i}`, message: 'x'.repeat(50) }));
    const text = JSON.stringify(errorEnvelope('INVALID_RULES', 'm'.repeat(5_000_000), { errors }));
    expect(text.length).toBeLessThan(MAX_ERROR_MESSAGE_CHARS + MAX_ERROR_DETAILS_CHARS + 4_096);
    const { error } = JSON.parse(text);
    expect(error.message).toContain('[truncated ');
    expect(error.details.errors.at(-1)).toMatch(/^…\[\d+ more items not kept\]$/);
    expect(error.details.details_truncated).toBeDefined();
  });
});

describe('ApiError', () => {
  it('takes its status from the code table, and is recognised by name and code', () => {
    const error = new ApiError('NOT_PENDING', 'decided already', { status: 'succeeded' });
    expect(error.status).toBe(409);
    expect(error.status).toBe(ERROR_STATUS.NOT_PENDING);
    expect(new ApiError('UNAUTHENTICATED', 'who?').status).toBe(401);
    expect(isApiError(error)).toBe(true);
    expect(isApiError({ name: 'ApiError', code: 'NOT_A_CODE', message: 'x' })).toBe(false);
    expect(isApiError(new Error('x'))).toBe(false);
    expect(toApiError(error)).toBe(error);
    const internal = toApiError(new Error('a secret cause'));
    expect(internal).toMatchObject({ code: 'INTERNAL_ERROR', status: 500 });
    expect(internal.message).not.toContain('secret');
  });
});

describe('errors through the app', () => {
  it('answers a path no route has with 404 NOT_FOUND in the envelope', async () => {
    const response = await callApp(app, 'GET', '/api/v1/nothing-here');
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    expect(await response.json()).toEqual({
      error: { code: 'NOT_FOUND', message: 'No API route /api/v1/nothing-here. See the README for the API.' },
    });
  });

  it('answers a method the path does not take with 405 and Allow; OPTIONS with 204 and Allow', async () => {
    const response = await callApp(app, 'PUT', '/api/v1/faults');
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, POST, HEAD, OPTIONS');
    const body = await response.json();
    expect(body.error.code).toBe('METHOD_NOT_ALLOWED');
    expect(body.error.message).toBe('/api/v1/faults answers GET, POST, HEAD, OPTIONS.');

    const withId = await callApp(app, 'POST', '/api/v1/faults/flt_x');
    expect(withId.status).toBe(405);
    expect(withId.headers.get('allow')).toBe('GET, PATCH, DELETE, HEAD, OPTIONS');

    const options = await callApp(app, 'OPTIONS', '/api/v1/faults');
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('GET, POST, HEAD, OPTIONS');
  });

  it('keeps the message of a long unknown path short', async () => {
    const path = `/api/v1/${'x'.repeat(20_000)}`;
    const response = await callApp(app, 'GET', path);
    expect(response.status).toBe(404);
    const { error } = await response.json();
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message.length).toBeLessThan(300);
  });

  it('bounds the field errors of a handler’s 400, the cut marked', async () => {
    // 200 rules naming 4,000-character tools that are not registered: 800 kB of field errors.
    const rules = Array.from({ length: 200 }, (_, i) => ({ list: 'allow', rule: `${'t'.repeat(4_000)}${i}` }));
    const text = JSON.stringify({ rules });
    const response = await callApp(app, 'PUT', '/api/v1/policy', {
      body: text,
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) },
    });
    expect(response.status).toBe(400);
    const answer = await response.text();
    expect(answer.length).toBeLessThan(MAX_ERROR_MESSAGE_CHARS + MAX_ERROR_DETAILS_CHARS + 4_096);
    const { error } = JSON.parse(answer);
    expect(error.code).toBe('INVALID_RULES');
    expect(error.message).toMatch(/\(and 199 more\)$/);
    expect(error.details.errors.at(-1)).toMatch(/more items not kept\]$/);
    expect(ts.policy.rules()).toEqual([]);
  });

  it('answers anything thrown that is not an ApiError as a 500 that says nothing of it', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const bare = new Hono<HttpEnv>();
    bare.onError(answerError);
    bare.get('/boom', () => {
      throw new Error('the database password is hunter2');
    });
    bare.get('/busy', () => {
      throw new ApiError('TOO_MANY_REQUESTS', 'Slow down.', undefined, { 'retry-after': '3' });
    });
    try {
      const response = await bare.request('/boom');
      expect(response.status).toBe(500);
      const body = await response.json();
      expect(body.error.code).toBe('INTERNAL_ERROR');
      expect(JSON.stringify(body)).not.toContain('hunter2');
      expect(errors).toHaveBeenCalled();

      const busy = await bare.request('/busy');
      expect(busy.status).toBe(429);
      expect(busy.headers.get('retry-after')).toBe('3');
      expect(await busy.json()).toEqual({ error: { code: 'TOO_MANY_REQUESTS', message: 'Slow down.' } });
    } finally {
      errors.mockRestore();
    }
  });
});
