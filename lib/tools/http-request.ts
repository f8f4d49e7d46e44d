import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { defineTool, type ZodTool } from '../executor/define-tool';
import { ToolError } from '../executor/errors';
import type { PermissionRefusal, SideEffect, ToolContext, TraceContext } from '../executor/types';
import { formatTraceparent, passOnIncoming, type TracePropagation } from '../otel/trace-context';
import { createHttpSubject } from '../policy/http-subject';
import { settingSource } from './config-source';
import { BINARY_SAMPLE_BYTES, detectBinary } from './detect-binary';
import { formatBytes } from './format-bytes';
import { createHostAllowlist, DEFAULT_HTTP_ALLOW, type HostAllowlist } from './host-allowlist';
import { httpErrorFor, networkError } from './http-errors';
import { readBody } from './http-request-body';
import { type AddressCheck, type ResolveHost, resolveChecked, resolveWithSystem } from './http-request-resolve';
import { sendPinned } from './http-request-send';
import { httpRequestDescriber } from './previews';

export const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;
export const DEFAULT_MAX_REDIRECTS = 5;
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/**
 * Headers that must not follow a redirect to another origin, as browsers do for Authorization:
 * every header that carries a credential, the same ones the trace redacts.
 */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization', 'x-api-key', 'api-key', 'x-auth-token'];
/** Headers about the connection itself, which the tool manages (fetch refuses them too). */
const CONNECTION_HEADERS = ['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'expect', 'te', 'trailer'];
const ACCEPT_ENCODING = 'gzip, deflate, br';

export interface HttpRequestOptions {
  /** Hosts the tool may reach (`localhost`, `api.example.com:443`, `*.example.com`). Default: loopback only. */
  allowHosts?: readonly string[];
  /** Hosts refused even when allowed, in the same forms (Toolscope's own `127.0.0.1:3000`). */
  denyHosts?: readonly string[];
  /** Bodies past this are cut and flagged `truncated`. Default 1 MiB. */
  maxResponseBytes?: number;
  maxRedirects?: number;
  timeoutMs?: number;
  /** The config file that set `allowHosts`, named in refusals; null when the defaults are in use. */
  configFile?: string | null;
  /** Turns hostnames into addresses, each then checked against the allowlist. Default: the system's. */
  resolve?: ResolveHost;
  /**
   * The trace context sent on (`traceparent`, `tracestate`) unless the request sets its own:
   * by default the one the call arrived with; with OpenTelemetry on, the call's own span.
   */
  propagation?: TracePropagation;
}

/** RFC 9110 §5.6.2: a header name is a token. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const headerName = z
  .string()
  .min(1, { message: 'A header name cannot be empty; give each header a name, e.g. "content-type".', abort: true })
  .regex(
    HEADER_NAME,
    'Not a valid header name: use letters, digits and - (or !#$%&\'*+.^_`|~), no spaces or colons, e.g. "x-request-id".',
  );

const headerValue = z.string().regex(/^[^\r\n\0]*$/, 'A header value cannot contain line breaks or NUL.');

const inputSchema = z.object({
  url: z
    .string()
    .min(1)
    .max(8192)
    .describe('Absolute http:// or https:// URL, e.g. "http://localhost:8080/api/items".'),
  method: z.enum(METHODS).default('GET').describe('HTTP method. Default GET.'),
  headers: z
    .record(headerName, headerValue)
    .optional()
    .describe('Request headers, e.g. {"content-type": "application/json"}.'),
  body: z
    .string()
    .max(DEFAULT_MAX_RESPONSE_BYTES)
    .optional()
    .describe('Request body as text (serialize JSON yourself). Not allowed with GET or HEAD.'),
});

export type HttpRequestInput = z.input<typeof inputSchema>;
type ParsedInput = z.output<typeof inputSchema>;

export interface HttpRequestOutput {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  statusText: string;
  headers: Record<string, string>;
  /** Parsed JSON for JSON responses, text otherwise, null when empty or binary. */
  body: unknown;
  bodyFormat: 'json' | 'text' | 'binary' | 'empty';
  /** Body bytes received (at most the cap). */
  bodyBytes: number;
  /** True when the body was longer than the cap and was cut. */
  truncated: boolean;
  /** Each URL redirected to, in order. */
  redirects: string[];
  /** Anything the model should know about the body: truncation, unparsable JSON, binary content. */
  note?: string;
}

/**
 * Where a request goes, for replay's secrets: the URL's origin (scheme, host, port; a default port
 * left out), and the `Host` header when the request sets one, since a server on a shared address
 * routes by it. Null for a URL that is not http(s) (the tool refuses it).
 * @example httpDestination({ url: 'https://API.example.com:443/a' }) // 'https://api.example.com'
 */
export function httpDestination(input: { url: string; headers?: Record<string, string> }): string | null {
  const url = URL.canParse(input.url) ? new URL(input.url) : null;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return null;
  const host = Object.entries(input.headers ?? {}).find(([name]) => name.toLowerCase() === 'host')?.[1];
  return host === undefined ? url.origin : `${url.origin} (Host: ${host.trim().toLowerCase()})`;
}

/**
 * What `http_request`'s circuit breaker is kept per: the URL's `host:port`, the default port filled
 * in, so one dead port does not block calls to a healthy host. Null for a URL that is not http(s).
 * @example httpCircuitKey({ url: 'http://Example.com/a' }) // 'example.com:80'
 */
export function httpCircuitKey(input: { url: string }): string | null {
  const url = URL.canParse(input.url) ? new URL(input.url) : null;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return null;
  return `${url.hostname}:${url.port || (url.protocol === 'https:' ? '443' : '80')}`;
}

/** GET and HEAD only read; every other method may change something. */
export function httpSideEffect(input: { method?: string }): SideEffect {
  const method = (input.method ?? 'GET').toUpperCase();
  return method === 'GET' || method === 'HEAD' ? 'read' : 'write';
}

/**
 * The `http_request` tool: one HTTP request to an allowlisted host.
 *
 * 1. The URL must be http(s), carry no credentials, and have an allowlisted host (and port).
 *    `checkPermission` refuses other hosts at the permission stage, naming the config file;
 *    `execute` checks again, in case it is called without that stage.
 * 2. The host is resolved once (the `resolve` port) and every address checked: an allowlisted
 *    name that leads to a loopback, private, link-local, ... address is refused
 *    (`ADDRESS_NOT_ALLOWED`) unless the address is allowlisted. The connection goes to the checked
 *    addresses only, never through a second lookup, so DNS rebinding cannot slip past the check.
 * 3. Redirects are followed by hand (at most `maxRedirects`), each Location checked like the
 *    first URL (scheme, name, addresses) before it is requested; credentials are dropped on a
 *    change of origin.
 * 4. The body is decoded (gzip, deflate, br) and cut at `maxResponseBytes` decoded bytes
 *    (`truncated: true`): a partial page is more use to a model than an error, the transfer is
 *    aborted at the cap, and a decompression bomb stops there. A body that never ends is cut at
 *    the cap or by the call's timeout, whichever comes first.
 * 5. 429 and 5xx throw a temporary `HTTP_ERROR` (retried for requests that are safe to repeat);
 *    other 4xx a business `HTTP_ERROR` with the status and a body excerpt.
 *
 * Declared `write` (the worst case); `sideEffectOf` gives `read` for GET and HEAD.
 * @example createHttpRequestTool().execute({ url: 'http://localhost:8080/health' }, ctx)
 */
export function createHttpRequestTool(options: HttpRequestOptions = {}): ZodTool<ParsedInput, HttpRequestOutput> {
  const allowlist = createHostAllowlist(options.allowHosts ?? DEFAULT_HTTP_ALLOW, options.denyHosts);
  const maxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const hosts = allowlist.entries.length > 0 ? allowlist.entries.join(', ') : 'none';
  const hostCheck: HostCheck = { allowlist, configFile: options.configFile };
  const propagation = options.propagation ?? passOnIncoming;
  const resolve = options.resolve ?? resolveWithSystem;
  return defineTool({
    name: 'http_request',
    description: [
      'Send one HTTP request and return the status, headers and body (parsed when JSON).',
      `Allowed hosts: ${hosts}; other hosts, and redirects to them, are refused.`,
      `Bodies over ${formatBytes(maxBytes)} are cut (truncated: true).`,
      'Status 4xx and 5xx are reported as errors with the status and the start of the body.',
    ].join(' '),
    inputSchema,
    sideEffect: 'write',
    sideEffectOf: httpSideEffect,
    permissionSubject: createHttpSubject(),
    destination: httpDestination,
    describe: httpRequestDescriber,
    circuitKey: httpCircuitKey,
    timeoutMs: options.timeoutMs ?? 15_000,
    sensitivePaths: sensitiveHeaderPaths(),
    checkPermission: (input) => {
      const url = URL.canParse(input.url) ? new URL(input.url) : null;
      // A URL that does not parse, or is not http(s), is the execute stage's parameter error.
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return null;
      return hostRefusal(url, hostCheck);
    },
    async execute(input, ctx) {
      try {
        const trace = propagation({ traceId: ctx.traceId, traceContext: ctx.traceContext });
        return await sendRequest(input, {
          hostCheck,
          resolve,
          maxBytes,
          maxRedirects,
          signal: ctx.signal,
          trace,
          permission: ctx.permission,
        });
      } catch (error) {
        if (ctx.signal.aborted) throw ctx.signal.reason;
        throw error;
      }
    },
  });
}

/** The allowlist and where it was configured, for refusals. */
interface HostCheck {
  allowlist: HostAllowlist;
  /** The config file that set the allowlist; null for the defaults, undefined when not told. */
  configFile: string | null | undefined;
}

interface SendOptions {
  hostCheck: HostCheck;
  resolve: ResolveHost;
  maxBytes: number;
  maxRedirects: number;
  signal: AbortSignal;
  /** Sent as `traceparent` (and `tracestate`) when the request has none of its own. */
  trace: TraceContext | null;
  /** The permission rules, asked again about each redirect (`ToolContext.permission`). */
  permission: ToolContext['permission'];
}

async function sendRequest(input: ParsedInput, options: SendOptions): Promise<HttpRequestOutput> {
  const { signal } = options;
  let url = checkUrl(input.url, options.hostCheck);
  let method: ParsedInput['method'] = input.method;
  let body = input.body;
  if (body !== undefined && (method === 'GET' || method === 'HEAD')) {
    throw ToolError.parameter('BODY_NOT_ALLOWED', `A ${method} request cannot have a body; use POST, PUT or PATCH.`);
  }
  const headers = buildHeaders(input.headers);
  if (options.trace && !headers.has('traceparent')) {
    headers.set('traceparent', formatTraceparent(options.trace));
    if (options.trace.tracestate && !headers.has('tracestate')) headers.set('tracestate', options.trace.tracestate);
  }
  const check: AddressCheck = { ...options.hostCheck, resolve: options.resolve };
  const redirects: string[] = [];
  let previous: URL | null = null;
  for (;;) {
    signal.throwIfAborted();
    const redirected = previous ? ` (redirected from ${previous.href})` : '';
    const addresses = await resolveChecked(url, check, method, signal, redirected);
    const response = await sendPinned(
      url,
      { method, headers: wireHeaders(headers, body), body },
      addresses,
      signal,
    ).catch((error: unknown) => {
      if (signal.aborted) throw signal.reason;
      throw networkError(error, method, url);
    });
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (!REDIRECT_STATUSES.has(status) || location === undefined) {
      return readResponse(response, method, url, redirects, options);
    }
    response.destroy();
    if (redirects.length >= options.maxRedirects) {
      throw ToolError.business('TOO_MANY_REDIRECTS', `Stopped after ${options.maxRedirects} redirects.`, {
        details: { redirects },
      });
    }
    const next = checkUrl(location, options.hostCheck, url);
    // As fetch does: 303 turns any request but HEAD into GET, 301 and 302 turn a POST into GET.
    const becomesGet = status === 303 ? method !== 'HEAD' : [301, 302].includes(status) && method === 'POST';
    if (becomesGet) {
      method = 'GET';
      body = undefined;
      headers.delete('content-type');
    }
    refuseByRules(options.permission, { ...input, url: next.href, method, headers: undefined, body: undefined }, url);
    // A host header set for the first origin would misname the next one.
    if (next.origin !== url.origin) for (const name of [...CREDENTIAL_HEADERS, 'host']) headers.delete(name);
    redirects.push(next.href);
    previous = url;
    url = next;
  }
}

/**
 * Refuses a redirect whose target the permission rules deny, or that an ask rule takes: nobody
 * approved that request (a call allowed by the side-effect default or a `policies` entry goes on,
 * as the call itself did).
 */
function refuseByRules(permission: SendOptions['permission'], next: ParsedInput, from: URL): void {
  if (!permission) return;
  const decided = permission(next);
  const byRule = !decided.rule.startsWith('default for ') && !decided.rule.startsWith('policies.');
  if (decided.policy === 'allow' || (decided.policy === 'ask' && !byRule)) return;
  throw new ToolError({
    code: 'REDIRECT_NOT_ALLOWED',
    kind: 'permission',
    message: `The server redirected ${from.href} to ${next.method} ${next.url}, which the rule "${decided.rule}" ${
      decided.policy === 'deny' ? 'denies' : 'would have to ask a person about'
    }; the redirect was not followed.`,
    hint: 'Do not retry: request an allowed URL, or ask the user to change the rule.',
    details: { location: next.url, policy: decided.policy, rule: decided.rule },
  });
}

async function readResponse(
  response: IncomingMessage,
  method: string,
  url: URL,
  redirects: string[],
  options: SendOptions,
): Promise<HttpRequestOutput> {
  if (method === 'HEAD') response.destroy();
  const read =
    method === 'HEAD'
      ? { bytes: Buffer.alloc(0), truncated: false, note: undefined }
      : await readBody(response, options.maxBytes, options.signal).catch((error: unknown) => {
          if (options.signal.aborted) throw options.signal.reason;
          if (isToolError(error)) throw error;
          throw networkError(error, method, url);
        });
  const headers = responseHeaders(response);
  const head = {
    status: response.statusCode ?? 0,
    statusText: response.statusMessage ?? '',
    headers: { get: (name: string) => headers[name.toLowerCase()] ?? null },
  };
  const parsed = parseBody(read.bytes, headers['content-type'] ?? '', read.truncated);
  if (head.status >= 400) throw httpErrorFor(head, method, url, parsed.text);
  const output: HttpRequestOutput = {
    url: url.href,
    status: head.status,
    statusText: head.statusText,
    headers,
    body: parsed.body,
    bodyFormat: parsed.format,
    bodyBytes: read.bytes.length,
    truncated: read.truncated,
    redirects,
  };
  const notes = [
    read.truncated && read.bytes.length >= options.maxBytes
      ? `The body was cut at ${formatBytes(options.maxBytes)}.`
      : '',
    read.note ?? '',
    parsed.note ?? '',
  ].filter(Boolean);
  if (notes.length > 0) output.note = notes.join(' ');
  return output;
}

/** Response headers by lowercase name; repeated ones (set-cookie) joined with ", ". */
function responseHeaders(response: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/**
 * The headers put on the wire: the model's, plus what a client says by default, and the body's
 * true length (a model's content-length could only disagree with it).
 */
function wireHeaders(headers: Headers, body: string | undefined): Record<string, string> {
  const wire: Record<string, string> = { accept: '*/*', 'user-agent': 'toolscope', 'accept-encoding': ACCEPT_ENCODING };
  headers.forEach((value, name) => {
    if (name !== 'content-length') wire[name] = value;
  });
  if (body !== undefined) wire['content-length'] = String(Buffer.byteLength(body));
  return wire;
}

function isToolError(error: unknown): error is ToolError {
  return typeof (error as { code?: unknown } | null)?.code === 'string' && error instanceof Error && 'kind' in error;
}

interface ParsedBody {
  body: unknown;
  format: HttpRequestOutput['bodyFormat'];
  /** The body as text, for error excerpts ('' when binary). */
  text: string;
  note?: string;
}

function parseBody(bytes: Buffer, contentType: string, truncated: boolean): ParsedBody {
  if (bytes.length === 0) return { body: null, format: 'empty', text: '' };
  const binary = detectBinary(bytes.subarray(0, BINARY_SAMPLE_BYTES));
  if (binary) {
    return { body: null, format: 'binary', text: '', note: `The body is binary (${binary}) and was left out.` };
  }
  const text = decode(bytes, contentType);
  if (!/[/+]json\b/i.test(contentType)) return { body: text, format: 'text', text };
  if (truncated) return { body: text, format: 'text', text, note: 'The JSON was cut, so it is returned as text.' };
  try {
    return { body: JSON.parse(text), format: 'json', text };
  } catch {
    return {
      body: text,
      format: 'text',
      text,
      note: 'The body claims to be JSON but does not parse; returned as text.',
    };
  }
}

function decode(bytes: Buffer, contentType: string): string {
  const charset = /charset="?([\w-]+)/i.exec(contentType)?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

function checkUrl(raw: string, hostCheck: HostCheck, base?: URL): URL {
  const redirected = base ? ` (redirected from ${base.href})` : '';
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw ToolError.parameter('INVALID_URL', `"${raw}" is not a valid absolute URL${redirected}.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw ToolError.parameter(
      'UNSUPPORTED_PROTOCOL',
      `Only http and https URLs are supported, not "${url.protocol}"${redirected}.`,
    );
  }
  const refusal = hostRefusal(url, hostCheck, redirected);
  if (refusal) {
    throw new ToolError({
      code: 'HOST_NOT_ALLOWED',
      kind: 'permission',
      message: refusal.message,
      hint: refusal.hint,
      details: { host: url.host },
    });
  }
  // After the host check, so "http://127.0.0.1@evil.com/" is refused for the host it really names.
  if (url.username || url.password) {
    throw ToolError.parameter(
      'CREDENTIALS_IN_URL',
      'URLs with user:password@ are not allowed; send credentials in headers.',
    );
  }
  return url;
}

/** The HTTP allowlist's verdict on a URL's host: Toolscope's own address, or a host not listed. */
function hostRefusal(url: URL, { allowlist, configFile }: HostCheck, redirected = ''): PermissionRefusal | null {
  const details = { host: url.host, allow: [...allowlist.entries], configFile: configFile ?? null };
  if (allowlist.denies(url)) {
    return {
      check: 'http allowlist',
      message:
        `The address "${url.host}" is Toolscope's own API and cannot be requested${redirected}, ` +
        'even when http.allow lists its host.',
      hint: 'Do not call Toolscope through this tool.',
      details,
    };
  }
  if (allowlist.allows(url)) return null;
  const hosts = allowlist.entries.length > 0 ? allowlist.entries.join(', ') : 'none';
  return {
    check: 'http allowlist',
    message:
      `The host "${url.host}" is not on the HTTP allowlist${redirected} ` +
      `(${settingSource('http.allow', configFile)}). Allowed hosts: ${hosts}.`,
    hint: 'Do not retry this host; use an allowed one, or ask the user to add it to the HTTP allowlist.',
    details,
  };
}

function buildHeaders(record: Record<string, string> | undefined): Headers {
  let headers: Headers;
  try {
    headers = new Headers(record);
  } catch (error) {
    throw ToolError.parameter('INVALID_HEADER', `Invalid request header: ${(error as Error).message}`, {
      cause: error,
    });
  }
  for (const name of CONNECTION_HEADERS) {
    if (headers.has(name)) {
      throw ToolError.parameter('INVALID_HEADER', `The "${name}" header is set by the tool itself; leave it out.`);
    }
  }
  return headers;
}

// The redactor matches paths case-insensitively, so `Authorization` and `AUTHORIZATION` are covered.
function sensitiveHeaderPaths(): string[] {
  return CREDENTIAL_HEADERS.map((name) => `headers.${name}`);
}
