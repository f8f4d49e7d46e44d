import { describe, expect, it } from 'vitest';
import { type GuardSettings, guardRequest, isJsonType } from './request-guard';

const settings = (over: Partial<GuardSettings> = {}): GuardSettings => ({
  host: '127.0.0.1',
  allowedHosts: [],
  ...over,
});

const request = (method: string, headers: Record<string, string>) => ({ method, headers: new Headers(headers) });

describe('guardRequest', () => {
  it.each(['127.0.0.1:3000', 'localhost:3000', '[::1]:3000', 'localhost'])('lets %s in', (host) => {
    expect(guardRequest(request('GET', { host }), settings())).toBeNull();
  });

  it('refuses other hosts: DNS rebinding', () => {
    expect(guardRequest(request('GET', { host: 'evil.example:3000' }), settings())).toMatchObject({
      status: 421,
      code: 'HOST_NOT_ALLOWED',
    });
    expect(guardRequest(request('GET', { host: '127.0.0.1.nip.io:3000' }), settings())).not.toBeNull();
  });

  it('accepts the bound HOST, configured hosts, and anything when bound to every interface', () => {
    expect(guardRequest(request('GET', { host: 'devbox:3000' }), settings({ host: 'devbox' }))).toBeNull();
    expect(
      guardRequest(request('GET', { host: 'a.lan:3000' }), settings({ allowedHosts: ['b.lan', 'a.lan'] })),
    ).toBeNull();
    expect(guardRequest(request('GET', { host: '10.0.0.5:3000' }), settings({ host: '0.0.0.0' }))).toBeNull();
  });

  it('refuses writes from another origin, allows same-origin and origin-less ones', () => {
    const host = '127.0.0.1:3000';
    expect(guardRequest(request('POST', { host, origin: 'https://evil.example' }), settings())).toMatchObject({
      status: 403,
      code: 'CROSS_ORIGIN',
    });
    expect(guardRequest(request('POST', { host, origin: 'null' }), settings())).not.toBeNull();
    expect(guardRequest(request('POST', { host, origin: 'http://127.0.0.1:3000' }), settings())).toBeNull();
    expect(guardRequest(request('POST', { host }), settings())).toBeNull();
    expect(guardRequest(request('GET', { host, origin: 'https://evil.example' }), settings())).toBeNull();
  });
});

describe('isJsonType', () => {
  it('accepts JSON media types only', () => {
    expect(isJsonType('application/json')).toBe(true);
    expect(isJsonType('application/json; charset=utf-8')).toBe(true);
    expect(isJsonType('application/vnd.api+json')).toBe(true);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', '', null, undefined]) {
      expect(isJsonType(type)).toBe(false);
    }
  });
});
