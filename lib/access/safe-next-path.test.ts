import { describe, expect, it } from 'vitest';
import { safeNextPath } from './safe-next-path';

/**
 * Where a login goes next (`safeNextPath`): a path on this server is kept with its query and hash;
 * anything that would leave the site once a browser resolves it — protocol-relative, backslash,
 * a tab or newline the URL parser drops, an absolute URL — and the login and auth routes
 * themselves go to `/`.
 */

describe('safeNextPath', () => {
  it.each([
    ['/', '/'],
    ['/traces', '/traces'],
    ['/traces/abc?x=1', '/traces/abc?x=1'],
    ['/traces/abc?x=1&y=2#stage-3', '/traces/abc?x=1&y=2#stage-3'],
    ['/approvals?trace=0192f3a4', '/approvals?trace=0192f3a4'],
    ['/sessions/s-1#calls', '/sessions/s-1#calls'],
    // Normalized as a browser would: the dots resolved, a space encoded.
    ['/traces/../sessions', '/sessions'],
    ['/a b', '/a%20b'],
    // Near the auth routes, but not them.
    ['/loginx', '/loginx'],
    ['/authors', '/authors'],
  ])('keeps the same-site path %j', (next, kept) => {
    expect(safeNextPath(next)).toBe(kept);
  });

  it.each([
    ['nothing', undefined],
    ['null', null],
    ['an empty string', ''],
    ['a relative path', 'traces'],
    ['an absolute URL', 'https://evil.example/'],
    ['a scheme-relative URL', '//evil.example'],
    ['a scheme-relative URL with a path', '//evil.example/traces'],
    ['a backslash after the slash', '/\\evil.example'],
    ['backslashes only', '\\\\evil.example'],
    ['a tab the parser drops (/%09/evil.example)', '/\t/evil.example'],
    ['a newline the parser drops', '/\n/evil.example'],
    ['a carriage return the parser drops', '/\r/evil.example'],
    ['dots that climb to a scheme-relative path', '/..//evil.example'],
    ['a dot segment then a backslash', '/./\\evil.example'],
    ['a javascript: URL', 'javascript:alert(1)'],
    ['a data: URL', 'data:text/html,<script>alert(1)</script>'],
    ['the login page', '/login'],
    ['the login page with its own next', '/login?next=//evil.example'],
    ['an auth route', '/auth/login'],
    ['the logout route', '/auth/logout'],
    ['an auth route behind dots', '/traces/../auth/session'],
  ])('goes to / for %s', (_, next) => {
    expect(safeNextPath(next)).toBe('/');
  });

  it('keeps encoded slashes: the browser resolves them as one path on this server', () => {
    // `/%2F%2Fevil` is not `//evil`: a Location of it stays on this origin (a path segment that
    // happens to hold slashes, a 404 here), since neither the URL parser nor a browser decodes
    // %2F when resolving. Redirecting to `/` would be as safe, but nothing needs it.
    expect(safeNextPath('/%2F%2Fevil.example')).toBe('/%2F%2Fevil.example');
    expect(safeNextPath('/%5Cevil.example')).toBe('/%5Cevil.example');
    expect(new URL(safeNextPath('/%2F%2Fevil.example'), 'https://toolscope.example').origin).toBe(
      'https://toolscope.example',
    );
  });

  it('never gives a path that leaves the site once resolved', () => {
    const tricky = ['//a', '/\\a', '/\t/a', '/..//a', '///a', '/\\/a', '/%2F/a', '\t//a', ' //a', '/%09/a'];
    for (const next of tricky) {
      const path = safeNextPath(next);
      expect(new URL(path, 'https://toolscope.example').origin, JSON.stringify(next)).toBe('https://toolscope.example');
    }
  });
});
