import { redactJsonText } from './redact-json-text';

/**
 * Secret shapes: values that are secrets whatever key holds them, and secrets inside URLs.
 *
 * Every pattern here must stay linear on any input (the body limit is 1 MiB, and a pattern that
 * backtracks stalls every request for seconds): each one starts at a literal prefix, its runs are
 * single character classes followed by a character outside the class or by nothing (so a failed
 * match gives back at most one run), and the runs that could be long before a required literal
 * are bounded. `lib/hardening/redaction-linear.test.ts` checks each on adversarial inputs.
 */

/** What replaces a secret everywhere Toolscope stores or shows data. */
export const REDACTED = '[REDACTED]';

/**
 * Bearer tokens, OpenAI/Anthropic keys (`sk-…`), Stripe keys, GitHub and GitLab tokens, Slack
 * tokens, Google API keys, npm tokens, AWS access key ids, JWTs and PEM private keys.
 */
const SECRET_SHAPES: readonly RegExp[] = [
  // Lazy to the END line, or to the end of the text when it has none: one start takes the rest.
  /-----BEGIN [A-Z0-9 ]{0,64}PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]{0,64}PRIVATE KEY-----|$)/g,
  /\bBearer\s{1,64}[A-Za-z0-9._~+/=-]{8,}/gi,
  // One class after the prefix: `sk-proj-…` and `sk-ant-api03-…` are runs of it too.
  /\bsk-[A-Za-z0-9_-]{16,}/g,
  /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/g,
  /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{20,}/g,
  /\bglpat-[A-Za-z0-9_-]{20,}/g,
  /\bxox[abposr]-[A-Za-z0-9-]{10,}/g,
  /\bAIza[0-9A-Za-z_-]{35}/g,
  /\bnpm_[A-Za-z0-9]{36}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g,
  // The lookbehind starts a JWT only where a run of its characters starts: with `\b`, every "-eyJ"
  // inside one long run would start a scan to the run's end (quadratic on "-eyJ" repeated).
  /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/g,
];

/** A quick test before running every pattern: most strings contain none of these. */
const SHAPE_HINT = /PRIVATE KEY|Bearer|sk-|k_live_|k_test_|gh[pousr]_|github_pat_|glpat-|xox|AIza|npm_|AKIA|ASIA|eyJ/i;

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

/**
 * `NAME=value` and `NAME: value` in free text (environment listings, logs, config files, YAML):
 * the name starts where a run of name characters starts (the lookbehind) and is bounded, so each
 * start costs at most 64 steps; the value is the pattern's last run, so it never backtracks. An
 * authorization scheme (`Basic`, `Bearer`, `Token`) takes the credentials after it along.
 */
const SECRET_ASSIGNMENT =
  /(?<![A-Za-z0-9_.-])([A-Za-z_][A-Za-z0-9_.-]{0,63})(=|: ?)((?:(?:Basic|Bearer|Token|Digest) )?[^\s&;,"'<>\\`]+)/g;

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

/** A key as compared: lowercased, without `-`, `_`, `.` and spaces. */
export function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[-_\s.]/g, '');
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

/** Scrubs secret shapes, secrets in URLs and assignments to secret names from a text; see `createShapeScrubber`. */
export type ShapeScrubber = (text: string, found?: string[]) => string;

/**
 * A scrubber of secret shapes for a judge of secret names (`isSecretKey`): values of secret keys
 * in JSON text (`{"api_key": "…"}` inside a string: a file's content, a response body, stdout),
 * assignments to secret names (`API_TOKEN=…`), URL passwords and secret-named parameters, then
 * the shapes above. What it removes is pushed to `found`, so the call can scrub it from everything
 * else it records.
 */
export function createShapeScrubber(
  isSecretKey: (key: string) => boolean,
  extraKeys: readonly string[] = [],
): ShapeScrubber {
  // A secret name holds one of these, however it is spelled (`api_key`, `X-Api-Key`, `PASSWD`):
  // text without any has no assignment or JSON pair to look at (most text, and cheap to tell).
  const words = ['pass', 'secret', 'key', 'auth', 'cookie', 'credential', 'token', 'pwd'];
  for (const key of extraKeys) words.push(key.toLowerCase(), normalizeKey(key));
  const nameHint = new RegExp(
    words
      .filter(Boolean)
      .map((word) => word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('|'),
    'i',
  );

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

  function scrubAssignments(text: string, found?: string[]): string {
    return text.replace(SECRET_ASSIGNMENT, (match, name: string, sign: string, value: string) => {
      if (value === REDACTED || value.startsWith('[REDACTED]') || !isSecretKey(name)) return match;
      keep(found, value);
      // `Basic dXNl…`: the credentials alone are what a program echoes.
      const space = value.indexOf(' ');
      if (space !== -1) keep(found, value.slice(space + 1));
      return `${name}${sign}${REDACTED}`;
    });
  }

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

  return (text, found) => {
    // The shortest secret either step finds is longer than this: most keys and values are shorter.
    if (text.length < 4) return text;
    let scrubbed = text;
    if ((scrubbed.includes('=') || scrubbed.includes(':')) && nameHint.test(scrubbed)) {
      if (scrubbed.includes('"')) scrubbed = redactJsonText(scrubbed, isSecretKey, found ?? []);
      scrubbed = scrubAssignments(scrubbed, found);
    }
    scrubbed = scrubUrls(scrubbed, found);
    if (!SHAPE_HINT.test(scrubbed)) return scrubbed;
    let out = scrubbed;
    for (const shape of SECRET_SHAPES) {
      out = out.replace(shape, (match) => {
        found?.push(match);
        return REDACTED;
      });
    }
    return out;
  };
}
