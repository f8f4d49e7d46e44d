/**
 * Where to go after logging in: `next` when it is a path on this server, else the traces.
 * Anything that could leave the site (`//host`, `/\host`, `https://…`) is dropped.
 * @example safeNextPath('/traces/abc?x=1') // '/traces/abc?x=1'
 */
export function safeNextPath(next: string | null | undefined): string {
  if (!next?.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  if (next === '/login' || next.startsWith('/login?') || next.startsWith('/auth/')) return '/';
  return next;
}
