import { ToolError, TRANSIENT_NETWORK_CODES } from '../executor/errors';

/** Methods a server must treat as safe to repeat (RFC 9110 §9.2.2). */
const IDEMPOTENT_METHODS = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
const EXCERPT_CHARS = 500;
/** Characters of the body quoted in the message the model reads. */
const MESSAGE_EXCERPT_CHARS = 400;

const STATUS_HINTS: Record<number, string> = {
  400: 'The server rejected the request; fix the body, query or headers.',
  401: 'The server wants credentials; send them in a header (e.g. authorization) or ask the user.',
  403: 'The server refuses this request; do not repeat it unchanged.',
  404: 'Nothing at this URL; check the path.',
  405: 'The server does not accept this method here; try another method.',
  409: 'The request conflicts with the current state; read the state first.',
  413: 'The request body is too large.',
  415: 'The server does not accept this content-type.',
  422: 'The server understood the request but the data is invalid; fix it.',
};

/** What an error needs of a response: a fetch `Response` has it, and so does the tool's own. */
export interface ResponseHead {
  status: number;
  statusText: string;
  headers: { get(name: string): string | null };
}

/**
 * The error for a response with status >= 400. Its message quotes the start of the body: the
 * server's own words (`{"error":"no such item"}`) are what a model needs to fix the request.
 * 429 and 5xx are temporary; they are retryable when repeating the request is safe: idempotent
 * methods, or 429 and 503, where the server says it did not process the request. A POST that met
 * a 500 may have been half done.
 */
export function httpErrorFor(response: ResponseHead, method: string, url: URL, text: string): ToolError {
  const { status } = response;
  const excerpt = bodyExcerpt(text, MESSAGE_EXCERPT_CHARS);
  const message =
    `HTTP ${status}${response.statusText ? ` ${response.statusText}` : ''} from ${method} ${url.href}` +
    (excerpt ? `: ${excerpt}` : '');
  const details: Record<string, unknown> = { status, url: url.href };
  if (text) details.body = text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
  if (status === 429 || status >= 500) {
    const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
    if (retryAfterMs !== undefined) details.retryAfterMs = retryAfterMs;
    const retryable = IDEMPOTENT_METHODS.has(method) || status === 429 || status === 503;
    return ToolError.temporary('HTTP_ERROR', message, {
      retryable,
      details,
      hint: retryable
        ? 'The server is busy or failing; the same request may work later.'
        : `The server failed; the ${method} may or may not have been processed. Check before repeating it.`,
    });
  }
  return ToolError.business('HTTP_ERROR', message, { details, hint: STATUS_HINTS[status] });
}

/**
 * The start of a body on one line: whitespace runs collapsed to one space, at most `max`
 * characters, ending in "… (cut)" when there was more. Only a bounded prefix is looked at.
 * @example bodyExcerpt('{\n  "error": "no such item"\n}', 400) // '{ "error": "no such item" }'
 */
export function bodyExcerpt(text: string, max: number): string {
  const prefix = text.slice(0, max * 16);
  const collapsed = prefix.replace(/\s+/g, ' ').trim();
  if (collapsed.length > max) return `${collapsed.slice(0, max).trimEnd()}… (cut)`;
  return prefix.length < text.length && text.slice(prefix.length).trim() !== '' ? `${collapsed}… (cut)` : collapsed;
}

/**
 * The error for a request that got no response. A refused connection never reached the server,
 * so it is retryable for any method; a reset mid-request only for idempotent ones.
 */
export function networkError(error: unknown, method: string, url: URL): ToolError {
  const code = findCode(error);
  const message = `Could not reach ${url.host}${code ? ` (${code})` : ''}: ${describeError(error)}`;
  if (code === 'ENOTFOUND') {
    return ToolError.business('HOST_NOT_FOUND', `The host "${url.hostname}" does not resolve.`, { cause: error });
  }
  if (code && /CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) {
    return ToolError.business('TLS_ERROR', message, { cause: error, details: { code } });
  }
  if (code === 'ECONNREFUSED') {
    return ToolError.temporary('CONNECTION_REFUSED', `Nothing is listening at ${url.host}.`, {
      cause: error,
      hint: 'Check the port, or whether the service is running.',
    });
  }
  const transient = code === undefined || TRANSIENT_NETWORK_CODES.has(code);
  return ToolError.temporary('NETWORK_ERROR', message, {
    cause: error,
    retryable: transient && IDEMPOTENT_METHODS.has(method),
    details: code ? { code } : undefined,
  });
}

/** Node's fetch hides the socket error in `cause`, sometimes in an AggregateError's list. */
function findCode(error: unknown, depth = 0): string | undefined {
  if (depth > 4 || typeof error !== 'object' || error === null) return undefined;
  const { code, cause, errors } = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof code === 'string' && code !== 'ERR_INVALID_STATE') return code;
  if (Array.isArray(errors)) {
    for (const inner of errors) {
      const found = findCode(inner, depth + 1);
      if (found) return found;
    }
  }
  return findCode(cause, depth + 1);
}

function describeError(error: unknown): string {
  const cause = (error as { cause?: unknown } | null)?.cause;
  if (cause instanceof Error && cause.message) return cause.message;
  return error instanceof Error ? error.message : String(error);
}

function parseRetryAfter(value: string | null): number | undefined {
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
