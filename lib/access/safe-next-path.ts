const BASE = 'http://toolscope.invalid';

/**
 * Where to go after logging in: `next` when it is a path on this server, else the traces. It is
 * parsed as a URL against this server, and kept only when it stays here: `//host`, `/\host`,
 * `/%09/host` (a tab the URL parser drops) and `https://…` all leave the site, and are dropped.
 * @example safeNextPath('/traces/abc?x=1') // '/traces/abc?x=1'
 */
export function safeNextPath(next: string | null | undefined): string {
  if (!next?.startsWith('/')) return '/';
  let url: URL;
  try {
    url = new URL(next, BASE);
  } catch {
    return '/';
  }
  if (url.origin !== BASE) return '/';
  const path = `${url.pathname}${url.search}${url.hash}`;
  if (!path.startsWith('/') || path.startsWith('//') || path.startsWith('/\\')) return '/';
  if (url.pathname === '/login' || url.pathname.startsWith('/auth/')) return '/';
  return path;
}
