import type { Toolscope } from '../../server/create-toolscope';
import { createHttpApp, type HttpApp } from '../app';

export interface CallOptions {
  /** Sent as JSON (with its content-type) unless it is a string. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
}

/**
 * One request to the HTTP layer's app in process (Hono's `app.request`), through its whole
 * chain as a loopback client sends it: `Host: 127.0.0.1:3000`. A body goes with its
 * `content-length`, as over the wire (the body limit reads a body only when its headers announce one).
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
    headers['content-length'] ??= String(Buffer.byteLength(body));
  }
  return Promise.resolve(app.request(`http://127.0.0.1:3000${path}`, { method, headers, body }));
}

const apps = new WeakMap<Toolscope, HttpApp>();

/** The HTTP app of a Toolscope, made on first use and kept for it. */
export const appOf = (ts: Toolscope): HttpApp => apps.get(ts) ?? apps.set(ts, createHttpApp(ts)).get(ts)!;

// biome-ignore lint/suspicious/noExplicitAny: tests read JSON answers whose shape they assert on
export type Json = any;

/** A request to a Toolscope's app, answered as its status and JSON body. */
export async function sendJson(ts: Toolscope, method: string, path: string, body?: unknown) {
  const response = await callApp(appOf(ts), method, path, { body });
  return { status: response.status, json: (await response.json()) as Json };
}
