import { describe, expect, it } from 'vitest';
import { SESSION_COOKIE, sessionValue, tokensMatch } from './access-token';
import { type GuardSettings, guardRequest } from './request-guard';

const TOKEN = 'correct-horse-battery-staple-42';
const settings = (token: string | null): GuardSettings => ({ host: '0.0.0.0', allowedHosts: [], token });
const request = (method: string, url: string, headers: Record<string, string> = {}) => ({
  method,
  url,
  headers: new Headers({ host: '10.0.0.5:3000', ...headers }),
});

describe('guardRequest with TOOLSCOPE_TOKEN', () => {
  it('without a token configured lets every request in, as before', () => {
    expect(guardRequest(request('POST', '/api/v1/tool-calls'), settings(null))).toEqual({ ok: true });
    expect(guardRequest(request('GET', '/traces/x'), settings(null))).toEqual({ ok: true });
  });

  it('takes the right bearer token on the API and on pages', () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect(guardRequest(request('POST', '/api/v1/tool-calls', auth), settings(TOKEN))).toEqual({ ok: true });
    expect(guardRequest(request('GET', '/api/v1/events?session=a', auth), settings(TOKEN))).toEqual({ ok: true });
    expect(guardRequest(request('GET', '/', { authorization: `bearer  ${TOKEN} ` }), settings(TOKEN))).toEqual({
      ok: true,
    });
  });

  it('answers 401 UNAUTHORIZED to the API without the token or with a wrong one', () => {
    const refused: Record<string, string>[] = [
      {},
      { authorization: 'Bearer wrong-token-wrong-token' },
      { authorization: `Bearer ${TOKEN}x` },
      { authorization: `Basic ${TOKEN}` },
      { cookie: `${SESSION_COOKIE}=${TOKEN}` },
    ];
    for (const headers of refused) {
      expect(guardRequest(request('GET', '/api/v1/stats', headers), settings(TOKEN))).toMatchObject({
        ok: false,
        status: 401,
        code: 'UNAUTHORIZED',
        message: expect.stringContaining('Authorization: Bearer'),
      });
    }
    const verdict = guardRequest(request('POST', '/api/v1/tool-calls'), settings(TOKEN));
    expect(verdict).toMatchObject({ status: 401 });
    expect(verdict).not.toHaveProperty('location');
  });

  it('a wrong bearer token is refused even beside a good session cookie', () => {
    const headers = { authorization: 'Bearer nope', cookie: `${SESSION_COOKIE}=${sessionValue(TOKEN)}` };
    expect(guardRequest(request('GET', '/api/v1/stats', headers), settings(TOKEN))).toMatchObject({ status: 401 });
  });

  it('takes the login cookie, derived from the token, on pages and the API', () => {
    const cookie = { cookie: `tz=UTC; ${SESSION_COOKIE}=${sessionValue(TOKEN)}; other=1` };
    expect(guardRequest(request('GET', '/traces/abc', cookie), settings(TOKEN))).toEqual({ ok: true });
    expect(guardRequest(request('GET', '/api/v1/events', cookie), settings(TOKEN))).toEqual({ ok: true });
    expect(sessionValue(TOKEN)).not.toContain(TOKEN);
    // A cookie made for another token does not open this one.
    const stale = { cookie: `${SESSION_COOKIE}=${sessionValue('another-token-another')}` };
    expect(guardRequest(request('GET', '/traces/abc', stale), settings(TOKEN))).toMatchObject({ ok: false });
  });

  it('sends a page view without the token to the login form, remembering where it was going', () => {
    expect(guardRequest(request('GET', '/traces/abc?tab=raw'), settings(TOKEN))).toEqual({
      ok: false,
      status: 307,
      code: 'UNAUTHORIZED',
      message: expect.any(String),
      location: '/login?next=%2Ftraces%2Fabc%3Ftab%3Draw',
    });
    // A web Request's absolute URL reads the same.
    expect(guardRequest(request('GET', 'http://10.0.0.5:3000/'), settings(TOKEN))).toMatchObject({
      location: '/login?next=%2F',
    });
  });

  it('lets the login page, its form target, logout and static files through; never a server action', () => {
    for (const [method, url] of [
      ['GET', '/login?next=%2F'],
      ['HEAD', '/login'],
      ['POST', '/auth/login'],
      ['POST', '/auth/logout'],
      ['GET', '/auth/session'],
      ['GET', '/_next/static/chunks/app.js'],
      ['GET', '/icon.svg?abc'],
    ] as const) {
      expect(guardRequest(request(method, url), settings(TOKEN))).toEqual({ ok: true });
    }
    // Server actions run by the id in their header, whatever the path: never without the token.
    expect(guardRequest(request('POST', '/login', { 'next-action': 'abc' }), settings(TOKEN))).toMatchObject({
      status: 401,
    });
    expect(guardRequest(request('POST', '/auth/login', { 'next-action': 'abc' }), settings(TOKEN))).toMatchObject({
      status: 401,
    });
    expect(guardRequest(request('POST', '/login'), settings(TOKEN))).toMatchObject({ status: 401 });
    expect(guardRequest(request('GET', '/_next/data/x'), settings(TOKEN))).toMatchObject({ status: 307 });
    for (const sneaky of [
      '/_next/static/..%2f..%2fapi%2fv1%2fstats',
      '/_next/static/%2e%2e/x',
      '/_next/static/a%5c..',
    ]) {
      expect(guardRequest(request('GET', sneaky), settings(TOKEN))).toMatchObject({ ok: false });
    }
    expect(
      guardRequest(request('GET', '/_next/static/chunks/app/traces/%5Bid%5D/page-1a.js'), settings(TOKEN)),
    ).toEqual({
      ok: true,
    });
  });

  it('checks host and origin before the token', () => {
    const loopback = { host: '127.0.0.1', allowedHosts: [], token: TOKEN };
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect(guardRequest(request('GET', '/api/v1/stats', { ...auth, host: 'evil.example' }), loopback)).toMatchObject({
      status: 421,
    });
    expect(
      guardRequest(request('POST', '/auth/login', { origin: 'http://evil.example' }), settings(TOKEN)),
    ).toMatchObject({ status: 403 });
  });
});

describe('tokensMatch', () => {
  it('compares hashes, so tokens of any lengths compare without throwing', () => {
    expect(tokensMatch(TOKEN, TOKEN)).toBe(true);
    expect(tokensMatch('', TOKEN)).toBe(false);
    expect(tokensMatch(`${TOKEN}${'x'.repeat(10_000)}`, TOKEN)).toBe(false);
    expect(tokensMatch(TOKEN.slice(0, -1), TOKEN)).toBe(false);
  });

  it('takes about as long for a near miss as for a miss at the first character', () => {
    const long = 'k'.repeat(4096);
    const time = (given: string) => {
      const start = process.hrtime.bigint();
      for (let i = 0; i < 2000; i++) tokensMatch(given, long);
      return Number(process.hrtime.bigint() - start);
    };
    time(long); // warm up
    const samples = (given: string) => Math.min(...Array.from({ length: 5 }, () => time(given)));
    const firstDiffers = samples(`x${long.slice(1)}`);
    const lastDiffers = samples(`${long.slice(0, -1)}x`);
    // Both hash the same number of bytes and compare 32 of them: neither is many times the other.
    expect(lastDiffers / firstDiffers).toBeLessThan(5);
    expect(firstDiffers / lastDiffers).toBeLessThan(5);
  });
});
