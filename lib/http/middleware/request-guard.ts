import { ApiError } from '../../errors';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);
const WILDCARD = new Set(['0.0.0.0', '::', '[::]']);

function hostnameOf(host: string): string {
  const bracketed = host.match(/^\[[^\]]*\]/)?.[0];
  return (bracketed ?? host.split(':')[0] ?? '').toLowerCase();
}

/** Where the app listens and which other names it answers to: `Config.host` and `Config.allowedHosts`. */
export interface GuardSettings {
  host: string;
  allowedHosts: readonly string[];
}

// The allowed names change only with the settings: built once, not on every request.
const allowedBySettings = new WeakMap<GuardSettings, Set<string>>();
function allowedHosts(settings: GuardSettings): Set<string> {
  let allowed = allowedBySettings.get(settings);
  if (!allowed) {
    allowed = new Set([...LOOPBACK, settings.host.toLowerCase(), ...settings.allowedHosts.map((h) => h.toLowerCase())]);
    allowed.delete('');
    allowedBySettings.set(settings, allowed);
  }
  return allowed;
}

/** What the guard reads of a request: its method and headers (a web `Request`'s, or Next's). */
export interface GuardedRequest {
  method: string;
  headers: { get(name: string): string | null };
}

/**
 * Refuses what a web page on another site could make a Toolscope on this machine do; null lets
 * the request on. Who the request is (its key) is the next step's to say.
 * 1. DNS rebinding: the Host header must name a loopback address (or the `HOST` the server was
 *    bound to, or one of `TOOLSCOPE_ALLOWED_HOSTS`), unless the server listens on every interface.
 * 2. Cross-site writes: a request that is not GET or HEAD and carries an `Origin` must come from
 *    the same host.
 */
export function guardRequest(request: GuardedRequest, settings: GuardSettings): ApiError | null {
  const host = request.headers.get('host') ?? '';
  if (!WILDCARD.has(settings.host.toLowerCase()) && !allowedHosts(settings).has(hostnameOf(host))) {
    return new ApiError(
      'HOST_NOT_ALLOWED',
      `Toolscope answers requests for loopback hosts only, not "${host}". Set TOOLSCOPE_ALLOWED_HOSTS to add one.`,
    );
  }
  const origin = request.headers.get('origin');
  if (origin && request.method !== 'GET' && request.method !== 'HEAD' && !sameHost(origin, host)) {
    return new ApiError('CROSS_ORIGIN', `Requests from ${origin} may not change anything here.`);
  }
  return null;
}

/** Whether an `Origin` header names `host` (`null` or garbage names nothing). */
export function sameHost(origin: string, host: string): boolean {
  try {
    return new URL(origin).host.toLowerCase() === host.toLowerCase();
  } catch {
    return false;
  }
}

const JSON_TYPE = /^application\/([\w.+-]*\+)?json\b/i;

/**
 * A body that changes something must be sent as JSON: a cross-site form or a "simple" fetch
 * cannot send that without a CORS preflight, which Toolscope never grants.
 */
export function isJsonType(contentType: string | null | undefined): boolean {
  return JSON_TYPE.test(contentType ?? '');
}

export const NOT_JSON_MESSAGE = 'Send the body as JSON with content-type: application/json.';
