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

  it('treats ; as a parameter separator, in the query and in path parameters', () => {
    expect(redactor.scrubText('https://h/x?a=b;token=secret1&c=d')).toBe(`https://h/x?a=b;token=${REDACTED}&c=d`);
    expect(redactor.scrubText('https://h/x;jsessionid=ABC123?q=1')).toBe(`https://h/x;jsessionid=${REDACTED}?q=1`);
    expect(redactor.scrubText('https://h/?q=a;b')).toBe('https://h/?q=a;b');
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
    ['ghp_ + one run ending in _', `ghp_${'a'.repeat(MiB)}_`],
    ['github_pat_ short runs', `-github_pat_${'a'.repeat(19)}!`.repeat(3.2e4)],
    ['PEM headers without end, repeated', `-----BEGIN ${'A'.repeat(64)}`.repeat(1.4e4)],
    ['PEM header then END runs', `-----BEGIN RSA PRIVATE KEY-----${`-----END ${'A '.repeat(30)}`.repeat(1.5e4)}`],
    ['PEM header, no end', `-----BEGIN RSA PRIVATE KEY-----\n${'A'.repeat(MiB)}`],
    ['Bearer + whitespace runs', `Bearer${' '.repeat(60)}!`.repeat(1.5e4)],
    ['Bearer + short tokens', 'Bearer abcdefg '.repeat(7e4)],
    ['sk- + a- pairs', `sk-${'a-'.repeat(MiB / 2)}`],
    ['sk- + a- pairs ending in _', `sk-${'a-'.repeat(MiB / 2)}_`],
    ['sk- + short runs', `sk-${'a-'.repeat(7)}!`.repeat(5.8e4)],
    ['AKIA near misses', ' AKIAAAAAAAAAAAAAAAA'.repeat(5e4)],
    ['.eyJ segments', '.eyJaaaaa'.repeat(1.1e5)],
    ['two JWT segments repeated', 'eyJaaaaa.eyJaaaaa.'.repeat(5.8e4)],
    ['userinfo at its bounds, repeated', `://${'a'.repeat(250)}:${'b'.repeat(2000)}`.repeat(460)],
    ['long parameter names', `?${'a'.repeat(63)}`.repeat(1.6e4)],
    ['empty parameters', '?a=&b=;c=#d='.repeat(8.7e4)],
    ['every hint at once', 'sk-Bearer eyJ AKIA ghp_ github_pat_ PRIVATE KEY ://@?&=;#'.repeat(1.8e4)],
  ])('stays linear on 1 MiB of adversarial input: %s', (_name, text) => {
    const started = performance.now();
    redactor.redact({ text });
    redactor.scrubText(text, ['abcd']);
    expect(performance.now() - started).toBeLessThan(1_500);
  });
});

describe('cost of scrubbing known secrets', () => {
  const redactor = createRedactor();
  const KiB = 1024;

  it('stays linear with tens of thousands of secret-keyed values scrubbed from every string of an output', () => {
    const args: Record<string, string> = {};
    for (let i = 0; i < 40_000; i++) args[`password${i}`] = `value-${i}`;
    const started = performance.now();
    const { secrets } = redactor.redact(args);
    const output = redactor.scrubValue({ echoed: Object.values(args), text: Object.values(args).join(' ') }, secrets);
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(output.echoed.every((value) => value === REDACTED)).toBe(true);
  });

  it.each([
    ['a token under a secret key', { token: 'x'.repeat(160 * KiB) }],
    ['an sk- key', { note: `sk-${'a-'.repeat(80 * KiB)}` }],
    ['a bearer token', { header: `Bearer ${'a'.repeat(160 * KiB)}` }],
    ['a JWT', { jwt: `eyJ${'a'.repeat(53 * KiB)}.eyJ${'a'.repeat(53 * KiB)}.${'a'.repeat(53 * KiB)}` }],
    ['a PEM key', { key: `-----BEGIN RSA PRIVATE KEY-----\n${'A'.repeat(160 * KiB)}` }],
    ['a GitHub token', { note: `ghp_${'a'.repeat(160 * KiB)}` }],
  ])('redacts a 160 KB argument shaped like %s, and its echo in the output, at once', (_name, args) => {
    const started = performance.now();
    const { value, secrets } = redactor.redact(args);
    const echoed = JSON.stringify(args);
    const scrubbed = redactor.scrubText(echoed.repeat(6), secrets);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(JSON.stringify(value).length).toBeLessThan(echoed.length);
    expect(scrubbed.length).toBeLessThan(echoed.length * 6);
  });
});
