import { redactJsonText } from './redact-json-text';
import { createShapeScrubber, normalizeKey, REDACTED } from './redact-shapes';
import { collectLeaves, transformTree } from './redact-walk';
import { createSecretMatcher, type SecretMatcher } from './secret-matcher';

export { REDACTED } from './redact-shapes';

/** Key fragments that mark a value as secret, compared after lowercasing and dropping `-`, `_`, `.`, spaces. */
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

export interface RedactionResult<T = unknown> {
  value: T;
  /** The secret values removed, so they can be scrubbed from output, stdout and stderr too. */
  secrets: string[];
}

export interface Redactor {
  /**
   * Redacts secret keys at any depth, the given dotted paths (`*` matches any key or index; keys
   * compared case-insensitively) and secret-shaped strings; then scrubs every value removed from
   * every other string of the value (`{"api_key": "k", "note": "my key is k"}` keeps neither).
   */
  redact<T>(value: T, sensitivePaths?: readonly string[]): RedactionResult<T>;
  /**
   * Redacts text meant as JSON that does not parse: the values of secret keys (`"token": "…"`,
   * found by a tolerant scan), secret shapes, and the known secrets.
   */
  redactText(text: string): RedactionResult<string>;
  /** Removes the given secrets, the known ones and every secret-shaped value from a text. */
  scrubText(text: string, secrets?: readonly string[]): string;
  /** Scrubs every string (and key) inside a JSON-like value, and redacts its secret keys. */
  scrubValue<T>(value: T, secrets?: readonly string[]): T;
  /** Whether a key (or an environment variable's name) marks its value as a secret. */
  isSecretKey(key: string): boolean;
}

export interface RedactorOptions {
  /**
   * Secrets known before any call (the server's own secret environment variables, MCP servers'
   * header values): scrubbed from everything, like a call's own secrets.
   */
  secrets?: readonly string[];
}

/**
 * Shorter secrets would scrub ordinary words out of output (a password "1" would wreck every
 * number), and JSON's literals are never secrets worth losing every `true` for. The value under
 * the secret key itself is redacted whatever its length.
 */
export const MIN_SCRUB_LENGTH = 4;
/** Secrets shorter than this are scrubbed only where they stand alone: a cookie "sess" leaves "session" be. */
export const WORD_BOUNDED_BELOW = 8;
const NOT_SECRETS = new Set(['true', 'false', 'null']);

/**
 * The texts to scrub for a list of secrets: long enough ones, not inside the marker itself
 * (scrubbing "DACT" would rewrite every `[REDACTED]`), each also as JSON escapes it (a program's
 * JSON output says `a\"b`) and as a URL encodes it (an echoed query string).
 */
function scrubSet(secrets: readonly string[]): string[] {
  const out: string[] = [];
  for (const secret of secrets) {
    if (secret.length < MIN_SCRUB_LENGTH || NOT_SECRETS.has(secret) || REDACTED.includes(secret)) continue;
    out.push(secret);
    // A long value (a key file, a blob) is echoed as it is, if at all: its variants would only cost memory.
    if (secret.length > 4096) continue;
    const escaped = JSON.stringify(secret).slice(1, -1);
    if (escaped !== secret) out.push(escaped);
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret) out.push(encoded);
  }
  return out;
}

/**
 * Creates the redactor used for everything stored or shown.
 * @param extraKeys keys from the config (`x-session`), matched like the built-in ones.
 */
export function createRedactor(extraKeys: readonly string[] = [], options: RedactorOptions = {}): Redactor {
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

  const scrubShapes = createShapeScrubber(isSecretKey, extraKeys);
  const knownSet = scrubSet(options.secrets ?? []);
  const known = knownSet.length > 0 ? createSecretMatcher(knownSet, { boundedBelow: WORD_BOUNDED_BELOW }) : null;

  /**
   * One matcher per list of secrets (the known ones included): the executor scrubs stdout,
   * stderr, output and errors with the same list, and `scrubValue` every string of a value;
   * rebuilt if the list grew. Null when there is nothing to look for.
   */
  const matchers = new WeakMap<readonly string[], { size: number; matcher: SecretMatcher | null }>();
  function matcherFor(secrets: readonly string[]): SecretMatcher | null {
    if (secrets.length === 0) return known;
    const cached = matchers.get(secrets);
    if (cached && cached.size === secrets.length) return cached.matcher;
    const set = scrubSet(secrets);
    const matcher =
      set.length === 0
        ? known
        : createSecretMatcher(knownSet.length > 0 ? knownSet.concat(set) : set, { boundedBelow: WORD_BOUNDED_BELOW });
    matchers.set(secrets, { size: secrets.length, matcher });
    return matcher;
  }

  function scrubText(text: string, secrets: readonly string[] = []): string {
    const matcher = matcherFor(secrets);
    return scrubShapes(matcher ? matcher.replaceAll(text, REDACTED) : text);
  }

  /** Keys get the shapes and the known secrets scrubbed too; most keys repeat, so the answer is kept. */
  const keyCache = new Map<string, string>();
  function scrubKey(key: string): string {
    let out = keyCache.get(key);
    if (out === undefined) {
      out = scrubShapes(known ? known.replaceAll(key, REDACTED) : key);
      if (keyCache.size < 10_000) keyCache.set(key, out);
    }
    return out;
  }

  /** Scrubs the call's own secrets from every string and key of a value already redacted. */
  function scrubFound<T>(value: T, secrets: string[]): T {
    const matcher = secrets.length === 0 ? null : matcherFor(secrets);
    if (!matcher || matcher === known) return value;
    // Keys are left alone: they are the value's structure, and a short secret would rewrite them.
    return transformTree(value, { text: (s) => matcher.replaceAll(s, REDACTED) }) as T;
  }

  return {
    redact<T>(value: T, sensitivePaths: readonly string[] = []): RedactionResult<T> {
      const secrets: string[] = [];
      // Paths match keys case-insensitively: models spell `Authorization` every way.
      const paths = sensitivePaths.length === 0 ? undefined : sensitivePaths.map((p) => p.toLowerCase().split('.'));
      const redacted = transformTree(
        value,
        {
          text: (s) => scrubShapes(known ? known.replaceAll(s, REDACTED) : s, secrets),
          key: scrubKey,
          isSecretKey,
          secret: (inner) => collectLeaves(inner, secrets),
        },
        paths,
      ) as T;
      // 2. What was removed anywhere is removed everywhere else in the value.
      return { value: scrubFound(redacted, secrets), secrets };
    },
    redactText(text: string): RedactionResult<string> {
      const secrets: string[] = [];
      let out = text.includes('"') ? redactJsonText(text, isSecretKey, secrets) : text;
      out = scrubShapes(known ? known.replaceAll(out, REDACTED) : out, secrets);
      const matcher = secrets.length === 0 ? null : matcherFor(secrets);
      if (matcher && matcher !== known) out = matcher.replaceAll(out, REDACTED);
      return { value: out, secrets };
    },
    scrubText,
    scrubValue<T>(value: T, secrets: readonly string[] = []): T {
      const matcher = matcherFor(secrets);
      const text = matcher
        ? (s: string) => scrubShapes(matcher.replaceAll(s, REDACTED))
        : (s: string) => scrubShapes(s);
      return transformTree(value, { text, key: scrubKey, isSecretKey }) as T;
    },
    isSecretKey,
  };
}
