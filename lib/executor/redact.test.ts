import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED } from './redact';

describe('redact', () => {
  const redactor = createRedactor(['x-session']);

  it('redacts sensitive keys at any depth, whatever their spelling', () => {
    const { value, secrets } = redactor.redact({
      user: 'ann',
      Password: 'p1',
      nested: { deeper: [{ api_key: 'k1' }, { 'X-Api-Key': 'k2' }], Authorization: 'Basic abc' },
      access_token: 't1',
      refreshToken: 't2',
      max_tokens: 100,
      cookie: 'c=1',
      client_secret: 's1',
      credentials: { user: 'u', pass: 'p' },
      private_key: 'pk',
      'x-session': 'sess',
    });
    expect(value).toEqual({
      user: 'ann',
      Password: REDACTED,
      nested: { deeper: [{ api_key: REDACTED }, { 'X-Api-Key': REDACTED }], Authorization: REDACTED },
      access_token: REDACTED,
      refreshToken: REDACTED,
      max_tokens: 100,
      cookie: REDACTED,
      client_secret: REDACTED,
      credentials: REDACTED,
      private_key: REDACTED,
      'x-session': REDACTED,
    });
    expect(secrets).toEqual(expect.arrayContaining(['p1', 'k1', 'k2', 'Basic abc', 't1', 'u', 'p', 'sess']));
  });

  it('redacts declared paths, with * for any key or index', () => {
    const { value } = redactor.redact(
      { headers: { 'x-custom': 'v' }, items: [{ pin: '1234' }, { pin: '5678' }], keep: 'x' },
      ['headers.x-custom', 'items.*.pin'],
    );
    expect(value).toEqual({
      headers: { 'x-custom': REDACTED },
      items: [{ pin: REDACTED }, { pin: REDACTED }],
      keep: 'x',
    });
  });

  it.each([
    ['Bearer abcdefghijklmnop', 'auth Bearer abcdefghijklmnop here'],
    ['sk-', 'key sk-proj-abcdefghijklmnopqrstuv'],
    ['ghp_', 'token ghp_abcdefghijklmnopqrstuvwxyz0123456789'],
    ['AKIA', 'id AKIAIOSFODNN7EXAMPLE'],
    ['JWT', 'jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'],
    ['PEM', '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----'],
  ])('redacts %s-shaped values anywhere', (_name, text) => {
    const { value } = redactor.redact({ note: text });
    expect(value.note).toContain(REDACTED);
    expect(value.note).not.toMatch(/abcdefghijklmnop|IOSFODNN|dozjg|MIIEow/);
    expect(redactor.scrubText(`out: ${text}`)).toContain(REDACTED);
  });

  it('scrubs known secrets from text and values, leaving short ones alone', () => {
    expect(redactor.scrubText('the password is hunter22!', ['hunter22', 'a'])).toBe(`the password is ${REDACTED}!`);
    expect(redactor.scrubValue({ out: ['x hunter22'], token: 'abc' }, ['hunter22'])).toEqual({
      out: [`x ${REDACTED}`],
      token: REDACTED,
    });
  });

  it('leaves empty and null secret values visible as such', () => {
    expect(redactor.redact({ password: '', token: null }).value).toEqual({ password: '', token: null });
  });
});

describe('declared paths', () => {
  it('match keys whatever their case', () => {
    const redactor = createRedactor();
    const { value } = redactor.redact({ Headers: { 'X-Pin': '4242' } }, ['headers.x-pin']);
    expect(value).toEqual({ Headers: { 'X-Pin': REDACTED } });
  });
});
