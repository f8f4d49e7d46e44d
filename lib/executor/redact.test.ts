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

describe('secrets in URLs', () => {
  const redactor = createRedactor();

  it('redacts user:password and secret query parameters, keeping the rest of the URL', () => {
    const { value, secrets } = redactor.redact({ url: 'http://u:p@h/x?token=abc123&page=2' });
    expect(value.url).toBe(`http://${REDACTED}@h/x?token=${REDACTED}&page=2`);
    expect(secrets).toEqual(expect.arrayContaining(['p', 'abc123']));
  });

  it.each([
    'token',
    'access_token',
    'refresh_token',
    'id_token',
    'key',
    'api_key',
    'apikey',
    'API-Key',
    'secret',
    'client_secret',
    'password',
    'passwd',
    'pwd',
    'signature',
    'sig',
    'X-Amz-Signature',
    'X-Amz-Credential',
    'auth',
    'credential',
    'credentials',
    'session',
    'sessionid',
    'jwt',
  ])('redacts the parameter %s, in the query and the fragment', (name) => {
    expect(redactor.scrubText(`GET https://api.test/v1?page=3&${name}=s3cr3tValue&q=x`)).toBe(
      `GET https://api.test/v1?page=3&${name}=${REDACTED}&q=x`,
    );
    expect(redactor.scrubText(`https://app.test/cb#${name}=s3cr3tValue`)).toBe(
      `https://app.test/cb#${name}=${REDACTED}`,
    );
  });

  it('leaves ordinary parameters alone', () => {
    const url = 'https://api.test/search?q=tokenizer&max_tokens=10&keyword=a&page=2&sort=key#section';
    expect(redactor.scrubText(url)).toBe(url);
    expect(redactor.scrubText('a=b&c=d, x == y ? 1 : 2')).toBe('a=b&c=d, x == y ? 1 : 2');
  });

  it('finds the parameters of a URL inside another URL, and of a URL inside JSON text', () => {
    expect(redactor.scrubText('/login?next=https://h/cb?code=1&token=abc123')).toBe(
      `/login?next=https://h/cb?code=1&token=${REDACTED}`,
    );
    expect(redactor.scrubText('{"url":"http://h/?api_key=k3y123\\u0026a=1"}')).toBe(
      `{"url":"http://h/?api_key=${REDACTED}\\u0026a=1"}`,
    );
  });

  it('scrubs the removed values from output too', () => {
    const { secrets } = redactor.redact({ url: 'http://admin:hunter22@h/?token=abc123' });
    expect(redactor.scrubText('echo: hunter22 abc123 hunter22', secrets)).toBe(
      `echo: ${REDACTED} ${REDACTED} ${REDACTED}`,
    );
    expect(redactor.scrubValue({ out: { link: 'see http://h/x?access_token=zzz999' } })).toEqual({
      out: { link: `see http://h/x?access_token=${REDACTED}` },
    });
  });

  it('keeps the decoded form of an encoded secret too', () => {
    const { secrets } = redactor.redact({ url: 'http://h/?password=p%40ss+word%2F1' });
    expect(secrets).toEqual(['p%40ss+word%2F1', 'p@ss word/1']);
    expect(redactor.scrubText('got p@ss word/1', secrets)).toBe(`got ${REDACTED}`);
  });

  it('leaves URLs with only a user name, and e-mail addresses, alone', () => {
    expect(redactor.scrubText('ssh://git@github.com/a/b and ann@example.com')).toBe(
      'ssh://git@github.com/a/b and ann@example.com',
    );
  });

  const MiB = 1024 * 1024;
  it.each([
    ['? + a…', `?${'a'.repeat(MiB)}`],
    ['&a= repeated', '&a='.repeat(3e5)],
    ['&token= repeated', '&token='.repeat(3e5)],
    ['?token=x repeated without separators', '?token=x'.repeat(1.3e5)],
    ['http:// + a… + @', `http://${'a'.repeat(MiB)}@`],
    ['http://a: + a… + @', `http://a:${'a'.repeat(MiB)}@`],
    [':// repeated', '://a:'.repeat(2e5)],
    ['://a:b repeated, no @', '://aaaa:bbbb'.repeat(9e4)],
    ['-eyJ repeated', '-eyJ'.repeat(2.6e5)],
    ['eyJ segments without the last dot', `eyJ${'a'.repeat(MiB / 2)}.eyJ${'a'.repeat(MiB / 2)}`],
    ['sk- repeated', '-sk-'.repeat(2.6e5)],
    ['Bearer + spaces', `Bearer${' '.repeat(MiB)}`],
    ['PEM header without end', `-----BEGIN ${'A '.repeat(MiB / 2)}`],
    ['ghp_ runs', `-ghp_${'a'.repeat(19)}_`.repeat(4e4)],
  ])('stays linear on 1 MiB of adversarial input: %s', (_name, text) => {
    const started = performance.now();
    redactor.redact({ text });
    redactor.scrubText(text, ['abcd']);
    expect(performance.now() - started).toBeLessThan(1_500);
  });
});
