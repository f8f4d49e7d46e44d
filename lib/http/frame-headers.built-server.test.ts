import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BuiltServer, hasCurrentBuild, startBuiltServer } from '../server/testing/built-server';
import { FRAME_HEADERS } from './frame-headers';

/**
 * No framing, as `npm start` serves it: the pages Next.js renders (Approvals above all: framed, it
 * is one click and `a` from approving a call), its static files and its 404, the login page and
 * the API all say `frame-ancestors 'none'` and `X-Frame-Options: DENY`.
 * Needs a current build (`node scripts/build.mjs`; `npm test` builds first); skipped without one.
 */
const built = await hasCurrentBuild('frame-headers.built-server.test');

describe.skipIf(!built)('the built server: no framing', () => {
  let server: BuiltServer;

  beforeAll(async () => {
    server = await startBuiltServer('toolscope-frame-built-');
  }, 90_000);

  afterAll(() => server?.stop());

  const expectNoFraming = (response: Response, what: string) => {
    expect(response.headers.get('content-security-policy'), what).toBe(FRAME_HEADERS['content-security-policy']);
    expect(response.headers.get('x-frame-options'), what).toBe('DENY');
  };

  it('sends the frame headers with every page, and the page still runs its scripts', async () => {
    for (const page of ['/approvals', '/', '/sessions', '/policy', '/login', '/no-such-page']) {
      const response = await fetch(`${server.base}${page}`);
      expect([200, 404], page).toContain(response.status);
      expect(response.headers.get('content-type'), page).toMatch(/text\/html/);
      expectNoFraming(response, page);
      const html = await response.text();
      // Next's inline scripts are there: nothing in the policy stops them.
      expect(html, page).toMatch(/<script/);
      const script = html.match(/src="(\/_next\/static\/[^"]+\.js)"/)?.[1];
      if (page === '/approvals' && script) expectNoFraming(await fetch(`${server.base}${script}`), script);
    }
  });

  it('sends them with API answers and errors', async () => {
    for (const [path, status] of [
      ['/api/v1/tools', 200],
      ['/api/v1/approvals', 200],
      ['/api/v1/nope', 404],
    ] as const) {
      const response = await fetch(`${server.base}${path}`);
      expect(response.status, path).toBe(status);
      expectNoFraming(response, path);
    }
  });
});
