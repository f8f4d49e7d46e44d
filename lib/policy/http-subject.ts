import type { PermissionSubject } from '../executor/types';
import { compileUrlPattern, exactUrlPattern } from './url-pattern';

const METHOD = /^([A-Za-z]+)\s+(\S.*)$/;

/**
 * `http_request`'s subject: `METHOD URL` (`GET https://api.example.com/v1/items`), the URL as the
 * WHATWG parser normalizes it (lower-case host, no default port, `..` segments resolved), so that
 * `https://API.example.com:443/a/../admin` is judged as `https://api.example.com/admin`.
 * A specifier is `[METHOD] URL`: without a method it matches any; the URL is matched part by part
 * (`compileUrlPattern`: scheme, host, port, path, query), so `https://*.example.com/*` never takes
 * `https://a.example.com@127.0.0.1/` or `https://127.0.0.1/?.example.com/`; `*` alone is any URL.
 */
export function createHttpSubject<I extends { url: string; method?: string }>(): PermissionSubject<I> {
  return {
    describe: 'an optional method and a URL matched part by part, e.g. GET https://api.example.com/*',
    of: (input) => `${methodOf(input)} ${normalizeUrl(input.url)}`,
    // A URL that does not parse (the tool refuses it) comes back as written, escaped, and may not compile.
    exact(input) {
      const url = parseUrl(input.url);
      return `${methodOf(input)} ${url ? exactUrlPattern(url) : input.url.replace(/[\\*]/g, '\\$&')}`;
    },
    compile(specifier) {
      const withMethod = specifier.match(METHOD);
      const method = withMethod ? (withMethod[1] as string).toUpperCase() : null;
      const text = withMethod ? (withMethod[2] as string) : specifier;
      const matchUrl = text === '*' ? null : compileUrlPattern(text);
      return (subject) => {
        const space = subject.indexOf(' ');
        if (method !== null && subject.slice(0, space) !== method) return false;
        if (matchUrl === null) return true;
        const url = parseUrl(subject.slice(space + 1));
        return url !== null && matchUrl(url);
      };
    },
  };
}

const methodOf = (input: { method?: string }) => (input.method ?? 'GET').toUpperCase();

function parseUrl(url: string): URL | null {
  return URL.canParse(url) ? new URL(url) : null;
}

/** The URL as `fetch` will send it; left as written when it does not parse (the tool refuses it). */
function normalizeUrl(url: string): string {
  return parseUrl(url)?.href ?? url;
}
