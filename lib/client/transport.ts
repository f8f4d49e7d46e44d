import { CLIENT_ERROR_CODES, fromFetchFailure, ToolscopeError } from './toolscope-error';

export interface TransportOptions {
  /** Where Toolscope serves, e.g. `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** `TOOLSCOPE_TOKEN`, sent as a bearer token. */
  token?: string;
  /** A `fetch` to use instead of the global one (a proxy agent, a test's). */
  fetch?: typeof fetch;
}

export interface SendOptions {
  query?: URLSearchParams;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  signal?: AbortSignal;
}

/** How the client talks HTTP: one place for the URL, the token and the error body. */
export interface Transport {
  /** The raw response (for streams); throws only when there is none (`NETWORK_ERROR`, `ABORTED`). */
  send(method: string, path: string, options?: SendOptions): Promise<Response>;
  /** The JSON answer; a non-2xx answer or a body that is not JSON throws a `ToolscopeError`. */
  json<T>(method: string, path: string, options?: SendOptions): Promise<T>;
  /** The `ToolscopeError` a non-2xx response stands for (reads its body). */
  errorOf(response: Response): Promise<ToolscopeError>;
}

/** The transport of one client; see `createToolscopeClient`. */
export function createTransport(options: TransportOptions): Transport {
  const base = options.baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? globalThis.fetch;
  const auth: Record<string, string> = options.token ? { authorization: `Bearer ${options.token}` } : {};

  const send = async (method: string, path: string, send: SendOptions = {}) => {
    const search = send.query?.toString();
    const url = `${base}${path}${search ? `?${search}` : ''}`;
    const headers: Record<string, string> = { ...auth, ...send.headers };
    if (send.body !== undefined) headers['content-type'] = 'application/json';
    try {
      return await doFetch(url, {
        method,
        headers,
        body: send.body === undefined ? undefined : JSON.stringify(send.body),
        signal: send.signal,
      });
    } catch (error) {
      throw fromFetchFailure(error, `${method} ${path}`, send.signal);
    }
  };

  const errorOf = async (response: Response) => {
    const text = await response.text().catch(() => '');
    try {
      const { error } = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; details?: unknown } };
      if (error && typeof error.code === 'string') {
        return new ToolscopeError(error.code, String(error.message ?? error.code), response.status, error.details);
      }
    } catch {
      // not the API's error body: a proxy's page, a cut connection
    }
    return new ToolscopeError(
      CLIENT_ERROR_CODES.BAD_RESPONSE,
      `HTTP ${response.status} ${response.statusText}: ${text.slice(0, 200) || 'no body'}`,
      response.status,
    );
  };

  return {
    send,
    errorOf,
    async json<T>(method: string, path: string, options?: SendOptions) {
      const response = await send(method, path, options);
      if (!response.ok) throw await errorOf(response);
      let text: string;
      try {
        text = await response.text();
      } catch (error) {
        throw fromFetchFailure(error, `${method} ${path}`, options?.signal);
      }
      try {
        return JSON.parse(text) as T;
      } catch {
        throw new ToolscopeError(
          CLIENT_ERROR_CODES.BAD_RESPONSE,
          `${method} ${path}: the answer is not JSON: ${text.slice(0, 200)}`,
          response.status,
        );
      }
    },
  };
}
