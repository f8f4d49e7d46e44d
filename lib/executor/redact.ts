import { createSecretMatcher, type SecretMatcher } from './secret-matcher';

/** What replaces a secret everywhere Toolscope stores or shows data. */
export const REDACTED = '[REDACTED]';

/** Key fragments that mark a value as secret, compared after lowercasing and dropping `-`, `_`, spaces. */
const SECRET_KEY_PARTS = [
  'password',
  'passwd',
  'secret',
  'apikey',
  'authorization',
  'cookie',
  'credential',
  'privatekey',
];

/**
 * Values that look like secrets whatever key holds them: bearer tokens, OpenAI/Anthropic keys,
 * GitHub tokens, AWS access key ids, JWTs and PEM private keys.
 */
const SECRET_SHAPES: RegExp[] = [
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g,
  /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  /\bsk-(?:[A-Za-z0-9]+-)*[A-Za-z0-9_-]{16,}/g,
  /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}\b/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  // The lookbehind starts a JWT only where a run of its characters starts: with `\b`, every "-eyJ"
  // inside one long run would start a scan to the run's end (quadratic on "-eyJ" repeated).
  /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/g,
];

/**
 * `user:password@` in a URL. Both parts stop at characters a URL's userinfo cannot hold unencoded
 * (and at quotes and backslashes, so a URL inside JSON text ends where the string does), so each
 * scan from a `://` ends by the next `/`: linear on any input. A password over 2048 characters is
 * left alone rather than scanned for without bound.
 */
const URL_USERINFO = /:\/\/([^\s/?#@:"'<>\\`]{0,256}):([^\s/?#@"'<>\\`]{1,2048})@/g;

/**
 * A query or fragment parameter: delimiter, name (bounded), `=`, value. The value is the last
 * part of the pattern, so its greedy run never backtracks; it stops at the next parameter (`&`,
 * and `;`, which separates parameters too: `?a=b;token=x`), at `?` (a URL inside a value gets its
 * own parameters checked) and at quotes, backslashes and spaces.
 */
const URL_PARAM = /([?&#;])([A-Za-z0-9_.~%[\]-]{1,64})=([^\s&#?;"'<>\\`]+)/g;

/** Parameter names (normalized like keys) that hold secrets, besides the secret key fragments. */
const SECRET_PARAM_NAMES = new Set([
  'key',
  'pwd',
  'sig',
  'signature',
  'jwt',
  'session',
  'sessionid',
  'jsessionid',
  'phpsessid',
  'accesskey',
]);

/** A quick test before running every pattern: most strings contain none of these. */
const SHAPE_HINT = /PRIVATE KEY|Bearer|sk-|gh[pousr]_|github_pat_|AKIA|ASIA|eyJ/i;

export interface RedactionResult<T = unknown> {
  value: T;
  /** The secret values removed, so they can be scrubbed from output, stdout and stderr too. */
  secrets: string[];
}

export interface Redactor {
  /**
   * Redacts secret keys at any depth, the given dotted paths (`*` matches any key or index; keys
   * compared case-insensitively) and secret-shaped strings.
   */
  redact<T>(value: T, sensitivePaths?: readonly string[]): RedactionResult<T>;
  /** Removes the given secrets and every secret-shaped value from a text. */
  scrubText(text: string, secrets?: readonly string[]): string;
  /** Scrubs every string inside a JSON-like value. */
  scrubValue<T>(value: T, secrets?: readonly string[]): T;
}

function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[-_\s.]/g, '');
}

/** Shorter secrets would scrub ordinary words out of output. */
const MIN_SCRUB_LENGTH = 4;

/**
 * Creates the redactor used for everything stored or shown.
 * @param extraKeys keys from the config (`x-session`), matched like the built-in ones.
 */
export function createRedactor(extraKeys: readonly string[] = []): Redactor {
  const parts = [...SECRET_KEY_PARTS, ...extraKeys.map(normalizeKey).filter(Boolean)];
  const cache = new Map<string, boolean>();

  function isSecretKey(key: string): boolean {
    let hit = cache.get(key);
    if (hit === undefined) {
      const k = normalizeKey(key);
      // "token" only as a suffix, so `access_token` is secret but `max_tokens` is not.
      hit = parts.some((part) => k.includes(part)) || k.endsWith('token') || k === 'auth';
      if (cache.size < 10_000) cache.set(key, hit);
    }
    return hit;
  }

  function isSecretParam(raw: string): boolean {
    let name = raw;
    if (name.includes('%')) {
      try {
        name = decodeURIComponent(name);
      } catch {
        // a malformed escape: judge the name as written
      }
    }
    const k = normalizeKey(name);
    return SECRET_PARAM_NAMES.has(k) || k.endsWith('signature') || isSecretKey(name);
  }

  /** Keeps a secret found in a URL, and its decoded form: a program may echo either. */
  function keep(found: string[] | undefined, value: string): void {
    if (!found) return;
    found.push(value);
    if (!value.includes('%') && !value.includes('+')) return;
    try {
      const decoded = decodeURIComponent(value.replaceAll('+', ' '));
      if (decoded !== value) found.push(decoded);
    } catch {
      // a malformed escape: the value as written is all there is
    }
  }

  /** Secrets in URLs: `user:password@` and query or fragment parameters with secret names. */
  function scrubUrls(text: string, found?: string[]): string {
    let out = text;
    if (out.includes('://') && out.includes('@')) {
      out = out.replace(URL_USERINFO, (_match, _user: string, password: string) => {
        keep(found, password);
        return `://${REDACTED}@`;
      });
    }
    if (out.includes('=') && /[?&#;]/.test(out)) {
      out = out.replace(URL_PARAM, (match, delimiter: string, name: string, value: string) => {
        if (value === REDACTED || !isSecretParam(name)) return match;
        keep(found, value);
        return `${delimiter}${name}=${REDACTED}`;
      });
    }
    return out;
  }

  function scrubShapes(text: string, found?: string[]): string {
    const scrubbed = scrubUrls(text, found);
    if (!SHAPE_HINT.test(scrubbed)) return scrubbed;
    let out = scrubbed;
    for (const shape of SECRET_SHAPES) {
      out = out.replace(shape, (match) => {
        found?.push(match);
        return REDACTED;
      });
    }
    return out;
  }

  /**
   * One matcher per list of secrets: the executor scrubs stdout, stderr, output and errors with
   * the same list, and `scrubValue` every string of a value; rebuilt if the list grew.
   */
  const matchers = new WeakMap<readonly string[], { size: number; matcher: SecretMatcher }>();
  function matcherFor(secrets: readonly string[]): SecretMatcher {
    const cached = matchers.get(secrets);
    if (cached && cached.size === secrets.length) return cached.matcher;
    const matcher = createSecretMatcher(secrets.filter((secret) => secret.length >= MIN_SCRUB_LENGTH));
    matchers.set(secrets, { size: secrets.length, matcher });
    return matcher;
  }

  function scrubText(text: string, secrets: readonly string[] = []): string {
    const out = secrets.length === 0 ? text : matcherFor(secrets).replaceAll(text, REDACTED);
    return scrubShapes(out);
  }

  function collectSecret(value: unknown, secrets: string[]): void {
    if (typeof value === 'string') secrets.push(value);
    else if (typeof value === 'number' || typeof value === 'bigint') secrets.push(String(value));
    else if (value && typeof value === 'object') {
      for (const inner of Object.values(value)) collectSecret(inner, secrets);
    }
  }

  function walk(value: unknown, paths: string[][], secrets: string[], depth: number): unknown {
    if (typeof value === 'string') return scrubShapes(value, secrets);
    if (value === null || typeof value !== 'object' || depth > 64) return value;
    const isArray = Array.isArray(value);
    const out: Record<string, unknown> | unknown[] = isArray ? [] : {};
    for (const [key, inner] of Object.entries(value)) {
      const lower = key.toLowerCase();
      const matching = paths.length === 0 ? paths : paths.filter((p) => p[0] === '*' || p[0] === lower);
      const pathHit = matching.some((p) => p.length === 1);
      let next: unknown;
      if (pathHit || (!isArray && isSecretKey(key))) {
        collectSecret(inner, secrets);
        next = inner === null || inner === undefined || inner === '' ? inner : REDACTED;
      } else {
        next = walk(
          inner,
          matching.map((p) => p.slice(1)),
          secrets,
          depth + 1,
        );
      }
      if (isArray) (out as unknown[]).push(next);
      else (out as Record<string, unknown>)[key] = next;
    }
    return out;
  }

  return {
    redact<T>(value: T, sensitivePaths: readonly string[] = []): RedactionResult<T> {
      const secrets: string[] = [];
      // Paths match keys case-insensitively: models spell `Authorization` every way.
      const paths = sensitivePaths.map((p) => p.toLowerCase().split('.'));
      return { value: walk(value, paths, secrets, 0) as T, secrets };
    },
    scrubText,
    scrubValue<T>(value: T, secrets: readonly string[] = []): T {
      const visit = (v: unknown, depth: number): unknown => {
        if (typeof v === 'string') return scrubText(v, secrets);
        if (v === null || typeof v !== 'object' || depth > 64) return v;
        if (Array.isArray(v)) return v.map((x) => visit(x, depth + 1));
        const out: Record<string, unknown> = {};
        for (const [k, x] of Object.entries(v)) out[k] = isSecretKey(k) && x ? REDACTED : visit(x, depth + 1);
        return out;
      };
      return visit(value, 0) as T;
    },
  };
}
