import { matchPart, type PartPattern } from './part-pattern';

/** Stands for a `*` while the pattern goes through the URL parser: lower-case ASCII, no hex number. */
const STAR = 'zqstarqz';
const DEFAULT_PORTS: Record<string, string> = { http: '80', https: '443' };

/** A URL specifier taken apart; null parts match anything. */
interface UrlPattern {
  scheme: 'http' | 'https' | null;
  host: PartPattern;
  /** Null: the scheme's default port only. */
  port: PartPattern | null;
  /** Null when the specifier ends after the host (or port): any path, as in URLPattern. */
  path: PartPattern | null;
  /** Null when the specifier has no `?`: any query, or none. */
  query: PartPattern | null;
}

/**
 * Compiles the URL of a specifier into a matcher of URLs, part by part as URLPattern does:
 * 1. scheme `http`, `https` or `*` (either);
 * 2. host: `*` matches characters within the host and never `:`, `/` or `@`, so a subject's
 *    userinfo or path can never stand in for it; a trailing dot does not count (`example.com.`);
 * 3. port: left out, the scheme's default only; `:*` any port (`:443` on https is the default);
 * 4. path: `*` matches any characters, `/` included (the path is one part, as in URLPattern); a
 *    specifier that ends after the host or port matches any path and query on it;
 * 5. query: without `?` any query or none; with `?q` the query must match `q` (`?` alone: none).
 * Literal parts are normalized by the WHATWG parser like the URLs they are matched against (host
 * case, punycode, `..`, percent-encoding). `\` makes the next character literal (`\*`); an escaped
 * `?` or `#` stays in the path. Throws, naming the problem, for what is not such a URL: userinfo,
 * a fragment, URLPattern groups (`{…}`, `/:name`), a `*` the parser moves or drops.
 * @example compileUrlPattern('https://*.example.com/*')(new URL('https://eu.example.com/a/b')) // true
 */
export function compileUrlPattern(text: string): (url: URL) => boolean {
  const pattern = parseUrlPattern(text);
  return (url) => {
    const scheme = url.protocol.slice(0, -1);
    if (pattern.scheme !== null ? scheme !== pattern.scheme : DEFAULT_PORTS[scheme] === undefined) return false;
    if (!matchPart(pattern.host, withoutTrailingDot(url.hostname), ':/@')) return false;
    const port =
      pattern.port === null ? url.port === '' : matchPart(pattern.port, url.port || (DEFAULT_PORTS[scheme] ?? ''));
    if (!port || (pattern.path !== null && !matchPart(pattern.path, url.pathname))) return false;
    return pattern.query === null || matchPart(pattern.query, url.search.slice(1));
  };
}

/**
 * The URL specifier that matches exactly `url` and nothing else: scheme, host, port, path and
 * query as the parser normalized them (userinfo and fragment, which no rule matches, left out), a
 * `?` always (so no other query matches), `*`, `\` and `{` escaped, a `:` after `/` too.
 * @example exactUrlPattern(new URL('https://x.test/a*b')) // 'https://x.test/a\\*b?'
 */
export function exactUrlPattern(url: URL): string {
  const literal = (part: string) => part.replace(/[\\*{]/g, '\\$&').replace(/\/:/g, '/\\:');
  return `${url.protocol}//${literal(url.host)}${literal(url.pathname)}?${literal(url.search.slice(1))}`;
}

function parseUrlPattern(text: string): UrlPattern {
  const prepared = prepare(text);
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(prepared);
  const schemeName = scheme?.[1]?.toLowerCase();
  if (!scheme || (schemeName !== 'http' && schemeName !== 'https' && schemeName !== STAR)) {
    throw new Error(`the URL must start with http://, https:// or *://, e.g. https://api.example.com/*`);
  }
  const rest = prepared.slice(scheme[0].length);
  const authorityEnd = rest.search(/[/?#]/);
  const authority = authorityEnd === -1 ? rest : rest.slice(0, authorityEnd);
  const after = authorityEnd === -1 ? '' : rest.slice(authorityEnd);
  if (authority.includes('@')) {
    throw new Error('a URL specifier names a host, never userinfo ("user@"); leave out what comes before "@"');
  }
  if (after.includes('#')) throw new Error('a fragment ("#…") is never sent, so no rule can match one; leave it out');
  const portAt = authority.startsWith('[')
    ? authority.indexOf(':', authority.indexOf(']'))
    : authority.lastIndexOf(':');
  const host = portAt === -1 ? authority : authority.slice(0, portAt);
  if (host === '') throw new Error('the URL has no host; write one, or "*" for any host');
  const port = portAt === -1 ? null : portPattern(authority.slice(portAt + 1));
  let url: URL;
  try {
    url = new URL(`${schemeName === 'https' ? 'https' : 'http'}://${host}${after}`);
  } catch {
    const ipv4 =
      host.includes(STAR) && /^[\d.]*\d$/.test(host.slice(host.lastIndexOf('.') + 1))
        ? ': a host ending in a number reads as an IP address, where "*" can only end it (10.0.*)'
        : ' (check the host)';
    throw new Error(`"${text}" is not a URL the parser takes${ipv4}`);
  }
  if (url.hostname.split('.').some((label) => label.includes(STAR) && label.startsWith('xn--'))) {
    throw new Error('a "*" inside a non-ASCII host label is not supported: write that label in punycode (xn--…)');
  }
  const hostname = withoutTrailingDot(url.hostname);
  const search = after.includes('?') ? url.search.slice(1) : null;
  const stars = (part: string) => part.split(STAR).length - 1;
  if (stars(host) + stars(after) !== stars(hostname) + stars(url.pathname) + stars(search ?? '')) {
    throw new Error('a "*" does not survive the URL parser here (a ".." after it drops it)');
  }
  return {
    scheme: schemeName === STAR ? null : schemeName,
    host: hostname.split(STAR),
    port,
    path: after === '' ? null : url.pathname.split(STAR),
    query: search === null ? null : search.split(STAR),
  };
}

/**
 * The specifier's URL with each `*` as `STAR` and each escape read: an escaped `?` or `#` becomes
 * `%3F` or `%23` (it stays in the path), others the character itself. Refuses URLPattern's groups.
 */
function prepare(text: string): string {
  if (text.toLowerCase().includes(STAR)) throw new Error(`"${STAR}" is reserved; it cannot be part of a rule`);
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (char === '\\') {
      const next = text[i + 1];
      if (next === undefined) throw new Error('it ends with a lone "\\"; write "\\\\" for a backslash');
      if (/[A-Za-z0-9]/.test(next)) {
        throw new Error(`"\\${next}" is no escape: "\\" makes only the punctuation after it literal (\\* \\\\ …)`);
      }
      out += next === '?' ? '%3F' : next === '#' ? '%23' : next;
      i++;
    } else if (char === '*') {
      out += STAR;
    } else if (char === '{') {
      throw new Error(
        'URLPattern groups "{…}" are not supported: write one rule per alternative, or "\\{" for a literal "{"',
      );
    } else if (char === ':' && text[i - 1] === '/' && /[A-Za-z_]/.test(text[i + 1] ?? '')) {
      throw new Error('URLPattern named groups ("/:name") are not supported: write "*", or "/\\:" for a literal ":"');
    } else {
      out += char;
    }
  }
  return out;
}

/** `8080` → `['8080']`, `*` → `['', '']`, `0443` → `['443']`; anything else is refused. */
function portPattern(text: string): PartPattern | null {
  if (text === '') return null;
  if (/^\d+$/.test(text) && Number(text) <= 65535) return [String(Number(text))];
  const parts = text.split(STAR);
  if (parts.length > 1 && parts.every((part) => /^\d*$/.test(part))) return parts;
  throw new Error(`the port "${text.replaceAll(STAR, '*')}" is not a number up to 65535 or "*"`);
}

function withoutTrailingDot(hostname: string): string {
  return hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
}
