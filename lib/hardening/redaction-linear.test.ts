import { describe, expect, it } from 'vitest';
import { createRedactor, REDACTED } from '../executor/redact';
import { CUT_DEEPER, MAX_COPY_DEPTH } from '../executor/redact-walk';
import { createSecretMatcher } from '../executor/secret-matcher';

/**
 * Redaction is linear in its input: every secret pattern, the tolerant scan of malformed JSON and
 * the matcher of known secrets, on adversarial inputs up to the body limit (1 MiB). Each case
 * does the same work on the same number of characters twice: once as one input of 1 MiB, once as
 * 64 inputs of 16 KiB. Linear work costs the same either way; work that grows with the square of
 * its input (a pattern that backtracks, a scan restarted at every match) costs 64× more in one
 * piece. Each side is the best of a few runs, so a busy machine does not decide, and the bound,
 * 10×, leaves room for what V8 adds to large inputs (allocation and collection grow faster than
 * linearly on a loaded machine) while staying 6× under quadratic growth.
 */
const MiB = 1024 * 1024;
const PIECES = 64;
const LARGE = MiB;
const SMALL = LARGE / PIECES;
const MAX_RATIO = 10;

/** `unit` repeated to about `n` characters. */
function fill(unit: string, n: number): string {
  return unit.repeat(Math.max(1, Math.ceil(n / unit.length)));
}

/** The best of `runs` timings of `work` on every input, in milliseconds. */
function best(work: (input: string) => unknown, inputs: readonly string[], runs: number): number {
  let fastest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    for (const input of inputs) work(input);
    fastest = Math.min(fastest, performance.now() - started);
  }
  return fastest;
}

function expectLinear(work: (input: string) => unknown, make: (n: number) => string): void {
  const small = make(SMALL);
  const large = make(LARGE);
  expect(large.length).toBeLessThanOrEqual(LARGE + 4096);
  work(small); // warm up: compiled code, the key cache
  const pieces = Array.from({ length: Math.round(large.length / small.length) }, () => small);
  const ratio = best(work, [large], 3) / Math.max(best(work, pieces, 3), 0.5);
  if (process.env.REDACTION_RATIOS) console.log(`ratio ${ratio.toFixed(2)}`);
  expect(ratio, `1 MiB in one piece cost ${ratio.toFixed(1)}× what it cost in ${pieces.length} pieces`).toBeLessThan(
    MAX_RATIO,
  );
}

const redactor = createRedactor(['x-session'], { secrets: ['env-secret-value-0123'] });
const scrub = (text: string) => redactor.scrubText(text, ['abcd1234', 'aaaa']);
const redactValue = (text: string) => redactor.redact({ nested: [{ note: text }] });
const redactText = (text: string) => redactor.redactText(text);

/** Adversarial inputs for each pattern: its prefix repeated, runs that just fail to match, its delimiters. */
const ADVERSARIAL: [string, (n: number) => string][] = [
  ['PEM: headers without an end', (n) => fill(`-----BEGIN ${'A'.repeat(64)}`, n)],
  ['PEM: header then END runs', (n) => `-----BEGIN RSA PRIVATE KEY-----${fill(`-----END ${'A '.repeat(30)}`, n)}`],
  ['PEM: header, no end', (n) => `-----BEGIN RSA PRIVATE KEY-----\n${'A'.repeat(n)}`],
  ['PEM: begin words repeated', (n) => fill('-----BEGIN ', n)],
  ['Bearer + spaces', (n) => `Bearer${' '.repeat(n)}`],
  ['Bearer + whitespace runs', (n) => fill(`Bearer${' '.repeat(60)}!`, n)],
  ['Bearer + short tokens', (n) => fill('Bearer abcdefg ', n)],
  ['sk- repeated', (n) => fill('-sk-', n)],
  ['sk- + a- pairs ending in !', (n) => `sk-${fill('a-', n)}!`],
  ['sk- + short runs', (n) => fill(`sk-${'a-'.repeat(7)}!`, n)],
  ['sk_live_ near misses', (n) => fill(`sk_live_${'a'.repeat(15)}!`, n)],
  ['ghp_ runs ending in _', (n) => fill(`-ghp_${'a'.repeat(19)}_`, n)],
  ['ghp_ + one run', (n) => `ghp_${'a'.repeat(n)}_`],
  ['github_pat_ short runs', (n) => fill(`-github_pat_${'a'.repeat(19)}!`, n)],
  ['github_pat_ repeated', (n) => fill('github_pat_', n)],
  ['glpat- near misses', (n) => fill(`glpat-${'a'.repeat(19)} `, n)],
  ['xox near misses', (n) => fill('xoxb-abcdefghi ', n)],
  ['AIza near misses', (n) => fill(`AIza${'a'.repeat(34)} `, n)],
  ['npm_ near misses', (n) => fill(`npm_${'a'.repeat(35)} `, n)],
  ['AKIA near misses', (n) => fill(' AKIAAAAAAAAAAAAAAAA', n)],
  ['AKIA glued', (n) => fill('AKIA', n)],
  ['-eyJ repeated', (n) => fill('-eyJ', n)],
  ['.eyJ segments', (n) => fill('.eyJaaaaa', n)],
  ['two JWT segments repeated', (n) => fill('eyJaaaaa.eyJaaaaa.', n)],
  ['JWT segments without the last dot', (n) => `eyJ${'a'.repeat(n / 2)}.eyJ${'a'.repeat(n / 2)}`],
  ['URL: :// + a… + @', (n) => `http://${'a'.repeat(n)}@`],
  ['URL: ://a: + a… + @', (n) => `http://a:${'a'.repeat(n)}@`],
  ['URL: :// repeated', (n) => fill('://a:', n)],
  ['URL: ://a:b repeated, no @', (n) => fill('://aaaa:bbbb', n)],
  ['URL: userinfo at its bounds', (n) => fill(`://${'a'.repeat(250)}:${'b'.repeat(2000)}`, n)],
  ['URL: ? + a…', (n) => `?${'a'.repeat(n)}`],
  ['URL: &a= repeated', (n) => fill('&a=', n)],
  ['URL: &token= repeated', (n) => fill('&token=', n)],
  ['URL: ?token=x repeated', (n) => fill('?token=x', n)],
  ['URL: long parameter names', (n) => fill(`?${'a'.repeat(63)}`, n)],
  ['URL: empty parameters', (n) => fill('?a=&b=;c=#d=', n)],
  ['URL: encoded secret parameters', (n) => fill('&pass%77ord=%41%42%43', n)],
  ['assignments: a= repeated', (n) => fill('a=', n)],
  ['assignments: password= repeated', (n) => fill('password=', n)],
  ['assignments: long names without a sign', (n) => fill(`${'a'.repeat(63)} `, n)],
  ['assignments: token: Basic repeated', (n) => fill('token: Basic ', n)],
  ['assignments: one long value', (n) => `API_TOKEN=${'a'.repeat(n)}`],
  ['JSON in text: secret pairs', (n) => fill('{"password": "pw-0123456", "n": 1}', n)],
  ['JSON in text: quotes and colons', (n) => fill('":"', n)],
  ['every hint at once', (n) => fill('sk-Bearer eyJ AKIA ghp_ github_pat_ PRIVATE KEY ://@?&=;# xox AIza npm_ ', n)],
  ['known secrets: almost', (n) => fill('abcd123 env-secret-value-012 ', n)],
  ['known secrets: every one', (n) => fill('abcd1234 aaaa env-secret-value-0123 ', n)],
  ['short secret glued to words', (n) => fill('aaaaa', n)],
];

/** Malformed JSON for the tolerant scan of arguments that do not parse. */
const MALFORMED_JSON: [string, (n: number) => string][] = [
  ['an unterminated secret value', (n) => `{"token":"${'a'.repeat(n)}`],
  ['secret keys repeated', (n) => fill('"token":', n)],
  ['keys without values', (n) => fill('"a":', n)],
  ['quotes', (n) => fill('"', n)],
  ['escaped quotes', (n) => fill('\\"', n)],
  ['an unclosed bracket under a secret key', (n) => `{"password":${fill('[{', n)}`],
  ['brackets and strings under a secret key', (n) => `{"secret":[${fill('"]",', n)}`],
  ['secret pairs', (n) => fill('"api_key":"hunter2-xyz-0001",', n)],
  ['a value that never ends', (n) => `{"password": ${'1'.repeat(n)}`],
];

describe('redaction is linear in its input (1 MiB in one piece or in 64)', () => {
  it.each(ADVERSARIAL)('scrubText: %s', (_name, make) => expectLinear(scrub, make));
  it.each(ADVERSARIAL)('redact (a value holding the text): %s', (_name, make) => expectLinear(redactValue, make));
  it.each(MALFORMED_JSON)('redactText on malformed JSON: %s', (_name, make) => expectLinear(redactText, make));

  it('the measure itself tells a quadratic scan from a linear one', () => {
    // A scan restarted every 4 KiB, to the end: what a pattern that backtracks does, only slower.
    const quadratic = (text: string) => {
      let sum = 0;
      for (let i = 0; i < text.length; i += 4096) for (let j = i; j < text.length; j++) sum += text.charCodeAt(j);
      return sum;
    };
    expect(() => expectLinear(quadratic, (n) => 'a'.repeat(n))).toThrow(/in one piece cost/);
  });

  it('the matcher of known secrets, with many secrets sharing prefixes', () => {
    const secrets = Array.from({ length: 5_000 }, (_, i) => `${'a'.repeat(20)}${i}`);
    const matcher = createSecretMatcher(secrets, { boundedBelow: 8 });
    expectLinear(
      (text) => matcher.replaceAll(text, REDACTED),
      (n) => fill(`${'a'.repeat(20)}x`, n),
    );
  });

  it('scrubbing the secrets of 40,000 secret keys from a value of 1 MiB', () => {
    expectLinear(
      (text) => {
        const args: Record<string, string> = {};
        const words = text.split(' ');
        for (let i = 0; i < words.length; i++) args[`password${i}`] = `v-${words[i]}-${i}`;
        const { secrets } = redactor.redact(args);
        return redactor.scrubValue({ echoed: Object.values(args) }, secrets);
      },
      (n) => fill('abcdefghijklmnopqrstuvwxy ', n / 2),
    );
  });
});

/** `{ a: { a: … { [leafKey]: leaf } } }`, `depth` levels, built without recursion. */
function nested(depth: number, leaf: Record<string, unknown>): Record<string, unknown> {
  let value: Record<string, unknown> = leaf;
  for (let i = 0; i < depth; i++) value = { a: value, list: [i] };
  return value;
}

function deepest(value: unknown): Record<string, unknown> {
  let node = value as Record<string, unknown>;
  while (node.a && typeof node.a === 'object') node = node.a as Record<string, unknown>;
  return node;
}

describe('redaction walks any depth', () => {
  const leaf = {
    api_key: 'hunter2-xyz-deep-secret',
    note: 'my key is hunter2-xyz-deep-secret; also sk-abcdefghijklmnop1234',
    Authorization: { scheme: 'Basic', value: 'dXNlcjpwYXNzd29yZA==' },
  };

  it('redacts by key and by shape 100 levels down, and keeps the whole value', () => {
    const { value, secrets } = redactor.redact({ top: 'hunter2-xyz-deep-secret', deep: nested(100, leaf) });
    expect(secrets).toEqual(expect.arrayContaining(['hunter2-xyz-deep-secret', 'Basic', 'dXNlcjpwYXNzd29yZA==']));
    const bottom = deepest((value as { deep: unknown }).deep);
    expect(bottom).toEqual({
      api_key: REDACTED,
      note: `my key is ${REDACTED}; also ${REDACTED}`,
      Authorization: REDACTED,
    });
    expect((value as { top: string }).top).toBe(REDACTED);
  });

  it('finds secrets by key and by shape 10,000 levels down, without recursion; the copy stops at 256', () => {
    const { value, secrets } = redactor.redact({ top: 'hunter2-xyz-deep-secret', deep: nested(10_000, leaf) });
    expect(secrets).toEqual(
      expect.arrayContaining(['hunter2-xyz-deep-secret', 'sk-abcdefghijklmnop1234', 'dXNlcjpwYXNzd29yZA==']),
    );
    expect((value as { top: string }).top).toBe(REDACTED);
    // What is stored can be serialized (JSON.stringify recurses), and holds none of them.
    const text = JSON.stringify(value);
    expect(text).toContain(CUT_DEEPER);
    expect(text).not.toMatch(/hunter2|sk-abc|dXNlcjpw/);
    let depth = 0;
    for (let node = (value as { deep: unknown }).deep; typeof node === 'object'; node = (node as { a: unknown }).a)
      depth++;
    expect(depth).toBe(MAX_COPY_DEPTH);
  });

  it.each([100, 10_000])('scrubs an output %i levels deep', (depth) => {
    const output = nested(depth, {
      echoed: 'hunter2-xyz-deep-secret',
      token: 'tok-123456',
      link: 'https://h/?key=abc',
    });
    const scrubbed = redactor.scrubValue(output, ['hunter2-xyz-deep-secret']);
    if (depth < MAX_COPY_DEPTH) {
      expect(deepest(scrubbed)).toEqual({ echoed: REDACTED, token: REDACTED, link: `https://h/?key=${REDACTED}` });
    } else {
      expect(JSON.stringify(scrubbed)).toContain(CUT_DEEPER);
      expect(JSON.stringify(scrubbed)).not.toMatch(/hunter2|tok-123456/);
    }
  });

  it.each([100, 10_000])('redacts arrays nested %i levels deep', (depth) => {
    let value: unknown = ['sk-abcdefghijklmnop1234', { password: 'p4ssw0rd-deep' }];
    for (let i = 0; i < depth; i++) value = [value];
    const { value: redacted, secrets } = redactor.redact({ v: value });
    expect(secrets).toEqual(expect.arrayContaining(['p4ssw0rd-deep', 'sk-abcdefghijklmnop1234']));
    expect(JSON.stringify(redacted)).not.toMatch(/p4ssw0rd|sk-abc/);
    if (depth < MAX_COPY_DEPTH) {
      let node = (redacted as { v: unknown }).v;
      for (let i = 0; i < depth; i++) node = (node as unknown[])[0];
      expect(node).toEqual([REDACTED, { password: REDACTED }]);
    }
  });

  it('collects every value under a secret key, 10,000 levels down', () => {
    const { value, secrets } = redactor.redact({ credentials: nested(10_000, { pin: 'pin-0000-deepest' }) });
    expect(value).toEqual({ credentials: REDACTED });
    expect(secrets).toContain('pin-0000-deepest');
  });

  it('ends at a cycle instead of walking for ever', () => {
    const cyclic: Record<string, unknown> = { token: 'cycle-secret-1' };
    let node = cyclic;
    for (let i = 0; i < 100; i++) node = node.a = {} as Record<string, unknown>;
    node.back = cyclic;
    const { value } = redactor.redact(cyclic);
    expect(JSON.stringify(value)).toContain('[Circular]');
    expect(redactor.scrubValue(cyclic)).toBeTruthy();
  });

  it('reads values as JSON does (toJSON), and keeps one whose toJSON throws', () => {
    const when = new Date(Date.UTC(2026, 0, 2));
    const odd = {
      toJSON: () => {
        throw new Error('no');
      },
      token: 'odd-secret-123',
    };
    expect(redactor.scrubValue({ when, odd })).toEqual({
      when: when.toISOString(),
      odd: { toJSON: odd.toJSON, token: REDACTED },
    });
  });

  it('keeps a "__proto__" key as a key', () => {
    const { value } = redactor.redact(JSON.parse('{"__proto__": {"password": "pw-in-proto"}, "a": 1}'));
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(JSON.stringify(value)).toBe(`{"__proto__":{"password":"${REDACTED}"},"a":1}`);
  });
});

describe('a value seen under a secret key is scrubbed from every other field', () => {
  it('in the other fields of the arguments, at any depth, in arrays and in keys left alone', () => {
    const { value } = redactor.redact({
      api_key: 'hunter2-xyz-0123',
      note: 'my key is hunter2-xyz-0123',
      list: ['hunter2-xyz-0123', { deeper: 'x hunter2-xyz-0123 y' }],
    });
    expect(value).toEqual({
      api_key: REDACTED,
      note: `my key is ${REDACTED}`,
      list: [REDACTED, { deeper: `x ${REDACTED} y` }],
    });
  });

  it('as JSON escapes it and as a URL encodes it', () => {
    const { secrets } = redactor.redact({ password: 'p"a ss/w0rd' });
    expect(redactor.scrubText('{"echo":"p\\"a ss/w0rd"} ?q=p%22a%20ss%2Fw0rd', secrets)).toBe(
      `{"echo":"${REDACTED}"} ?q=${REDACTED}`,
    );
  });

  it('a short secret only where it stands alone, and one of 3 characters or JSON literals nowhere', () => {
    const { secrets } = redactor.redact({ cookie: 'sess', pin: 1, password: 'true', token: 'abc' });
    expect(redactor.scrubText('session sess; 1 true abc', secrets)).toBe(`session ${REDACTED}; 1 true abc`);
    expect(redactor.scrubText('x-session: sess-2', ['sess'])).toBe(`x-session: ${REDACTED}-2`);
  });

  it('the values of secret keys in arguments that are not JSON', () => {
    const { value, secrets } = redactor.redactText(
      '{"api_key": "hunter2-xyz-0123", "note": "my key is hunter2-xyz-0123", "password": 12345678, "secret": {"a": 1} ',
    );
    expect(value).not.toMatch(/hunter2|12345678/);
    expect(redactor.redactText('{"auth": true, "token": {"a": [1, "}"]}, "n": 1}').value).toBe(
      `{"auth": true, "token": "${REDACTED}", "n": 1}`,
    );
    expect(value).toContain(`"api_key": "${REDACTED}"`);
    expect(value).toContain(`"password": "${REDACTED}"`);
    expect(secrets).toEqual(expect.arrayContaining(['hunter2-xyz-0123', '12345678', '{"a": 1}']));
    expect(redactor.redactText('{"token": "unterminated-secret-value').value).toBe(`{"token": "${REDACTED}`);
  });

  it('assignments to secret names and JSON pairs inside text, and what they held everywhere else', () => {
    const text = 'MY_SERVICE_TOKEN=tok-0123456789\npassword: pw-99887766 max_tokens=100 Authorization: Basic dXNlcjpw';
    const { value, secrets } = redactor.redact({ env: text, body: '{"api_key": "k-0123456789", "n": 1}' });
    expect(value).toEqual({
      env: `MY_SERVICE_TOKEN=${REDACTED}\npassword: ${REDACTED} max_tokens=100 Authorization: ${REDACTED}`,
      body: `{"api_key": "${REDACTED}", "n": 1}`,
    });
    expect(redactor.scrubText('tok-0123456789 pw-99887766 k-0123456789 dXNlcjpw', secrets)).toBe(
      `${REDACTED} ${REDACTED} ${REDACTED} ${REDACTED}`,
    );
  });

  it('the known secrets (the server environment) from every text and key', () => {
    expect(redactor.scrubText('env: env-secret-value-0123')).toBe(`env: ${REDACTED}`);
    expect(redactor.redact({ 'env-secret-value-0123': 'env-secret-value-0123' }).value).toEqual({
      [REDACTED]: REDACTED,
    });
  });
});
