import { describe, expect, it } from 'vitest';
import { type GuardSettings, guardJsonBody, guardRequest } from './request-guard';

const settings = (over: Partial<GuardSettings> = {}): GuardSettings => ({
  host: '127.0.0.1',
  allowedHosts: [],
  ...over,
});

const request = (method: string, headers: Record<string, string>) => ({ method, headers: new Headers(headers) });

describe('guardRequest', () => {
  it.each(['127.0.0.1:3000', 'localhost:3000', '[::1]:3000', 'localhost'])('lets %s in', (host) => {
    expect(guardRequest(request('GET', { host }), settings())).toEqual({ ok: true });
  });

  it('refuses other hosts: DNS rebinding', () => {
    expect(guardRequest(request('GET', { host: 'evil.example:3000' }), settings())).toMatchObject({
      ok: false,
      status: 421,
      code: 'HOST_NOT_ALLOWED',
    });
    expect(guardRequest(request('GET', { host: '127.0.0.1.nip.io:3000' }), settings())).toMatchObject({ ok: false });
  });

  it('accepts the bound HOST, configured hosts, and anything when bound to every interface', () => {
    expect(guardRequest(request('GET', { host: 'devbox:3000' }), settings({ host: 'devbox' })).ok).toBe(true);
    expect(
      guardRequest(request('GET', { host: 'a.lan:3000' }), settings({ allowedHosts: ['b.lan', 'a.lan'] })).ok,
    ).toBe(true);
    expect(guardRequest(request('GET', { host: '10.0.0.5:3000' }), settings({ host: '0.0.0.0' })).ok).toBe(true);
  });

  it('refuses writes from another origin, allows same-origin and origin-less ones', () => {
    const host = '127.0.0.1:3000';
    expect(guardRequest(request('POST', { host, origin: 'https://evil.example' }), settings())).toMatchObject({
      ok: false,
      status: 403,
      code: 'CROSS_ORIGIN',
    });
    expect(guardRequest(request('POST', { host, origin: 'null' }), settings())).toMatchObject({ ok: false });
    expect(guardRequest(request('POST', { host, origin: 'http://127.0.0.1:3000' }), settings()).ok).toBe(true);
    expect(guardRequest(request('POST', { host }), settings()).ok).toBe(true);
    expect(guardRequest(request('GET', { host, origin: 'https://evil.example' }), settings()).ok).toBe(true);
  });
});

describe('guardJsonBody', () => {
  it('accepts JSON media types only', () => {
    expect(guardJsonBody('application/json').ok).toBe(true);
    expect(guardJsonBody('application/json; charset=utf-8').ok).toBe(true);
    expect(guardJsonBody('application/vnd.api+json').ok).toBe(true);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', '', null, undefined]) {
      expect(guardJsonBody(type)).toMatchObject({ ok: false, status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
    }
  });
});
