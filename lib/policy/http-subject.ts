import type { PermissionSubject } from '../executor/types';
import { compileWildcard } from './wildcard';

const METHOD = /^([A-Za-z]+)\s+(\S.*)$/;

/**
 * `http_request`'s subject: `METHOD URL` (`GET https://api.example.com/v1/items`), the URL as the
 * WHATWG parser normalizes it (lower-case host, no default port, `..` segments resolved), so that
 * `https://API.example.com:443/a/../admin` is judged as `https://api.example.com/admin`.
 * A specifier is `[METHOD] URL`: without a method it matches any; in the URL `*` matches any text
 * (`https://api.example.com/*`); a URL without `*` matches exactly, after the same normalizing.
 */
export function createHttpSubject<I extends { url: string; method?: string }>(): PermissionSubject<I> {
  return {
    describe: 'an optional method and a URL where * matches any text, e.g. GET https://api.example.com/*',
    of: (input) => `${(input.method ?? 'GET').toUpperCase()} ${normalizeUrl(input.url)}`,
    compile(specifier) {
      const withMethod = specifier.match(METHOD);
      const method = withMethod ? (withMethod[1] as string).toUpperCase() : null;
      const url = withMethod ? (withMethod[2] as string) : specifier;
      if (!/^(https?|\*):\/\//i.test(url) && url !== '*') {
        throw new Error(
          `"${specifier}" is not "[METHOD] URL": the URL must start with http:// or https://, e.g. GET https://api.example.com/*`,
        );
      }
      const matchUrl = compileWildcard(url.includes('*') ? url : normalizeUrl(url));
      return (subject) => {
        const space = subject.indexOf(' ');
        if (method !== null && subject.slice(0, space) !== method) return false;
        return matchUrl(subject.slice(space + 1));
      };
    },
  };
}

/** The URL as `fetch` will send it; left as written when it does not parse (the tool refuses it). */
function normalizeUrl(url: string): string {
  return URL.canParse(url) ? new URL(url).href : url;
}
