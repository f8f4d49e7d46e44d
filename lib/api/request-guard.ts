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

export type GuardVerdict = { ok: true } | { ok: false; status: number; code: string; message: string };

/** What the guard reads of a request: a web `Request`, Next's, or the agent path's view of Node's. */
export interface GuardedRequest {
  method: string;
  headers: { get(name: string): string | null };
}

const OK: GuardVerdict = { ok: true };
const JSON_TYPE = /^application\/([\w.+-]*\+)?json\b/i;

/**
 * Refuses requests a web page on another site could make to a Toolscope on this machine.
 * 1. DNS rebinding: the Host header must name a loopback address (or the `HOST` the server was
 *    bound to, or one of `TOOLSCOPE_ALLOWED_HOSTS`), unless the server listens on every interface.
 * 2. Cross-site writes: a request that is not GET or HEAD and carries an `Origin` must come from
 *    the same host.
 */
export function guardRequest(request: GuardedRequest, settings: GuardSettings): GuardVerdict {
  const host = request.headers.get('host') ?? '';
  if (!WILDCARD.has(settings.host.toLowerCase())) {
    if (!allowedHosts(settings).has(hostnameOf(host))) {
      return {
        ok: false,
        status: 421,
        code: 'HOST_NOT_ALLOWED',
        message: `Toolscope answers requests for loopback hosts only, not "${host}". Set TOOLSCOPE_ALLOWED_HOSTS to add one.`,
      };
    }
  }
  const origin = request.headers.get('origin');
  if (origin && request.method !== 'GET' && request.method !== 'HEAD') {
    let originHost = '';
    try {
      originHost = new URL(origin).host;
    } catch {
      // "null" or garbage: not the same host
    }
    if (originHost.toLowerCase() !== host.toLowerCase()) {
      return {
        ok: false,
        status: 403,
        code: 'CROSS_ORIGIN',
        message: `Requests from ${origin} may not change anything here.`,
      };
    }
  }
  return OK;
}

/**
 * A body that changes something must be sent as JSON: a cross-site form or a "simple" fetch
 * cannot send that without a CORS preflight, which Toolscope never grants.
 */
export function guardJsonBody(contentType: string | null | undefined): GuardVerdict {
  if (JSON_TYPE.test(contentType ?? '')) return OK;
  return {
    ok: false,
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: 'Send the body as JSON with content-type: application/json.',
  };
}
