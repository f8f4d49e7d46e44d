import type { HttpApp } from '../app';

export interface CallOptions {
  /** Sent as JSON (with its content-type) unless it is a string. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
}

/**
 * One request to the HTTP layer's app in process (Hono's `app.request`), through its whole
 * chain as a loopback client sends it: `Host: 127.0.0.1:3000`.
 * @example const response = await callApp(app, 'POST', '/api/v1/faults', { body: { name: 'x' } });
 */
export function callApp(app: HttpApp, method: string, path: string, options: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { host: '127.0.0.1:3000', ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
      headers['content-type'] = 'application/json';
    }
  }
  return Promise.resolve(app.request(`http://127.0.0.1:3000${path}`, { method, headers, body }));
}
