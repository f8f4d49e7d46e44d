import { describe, expect, it } from 'vitest';
import { createSecretMatcher } from './secret-matcher';

const R = '[R]';
const MiB = 1024 * 1024;

describe('createSecretMatcher', () => {
  it('replaces every occurrence of every secret', () => {
    const matcher = createSecretMatcher(['hunter22', 'abc123', 'p@ss word/1']);
    expect(matcher.replaceAll('a hunter22 b abc123 c hunter22 p@ss word/1', R)).toBe(`a ${R} b ${R} c ${R} ${R}`);
    expect(matcher.replaceAll('nothing here', R)).toBe('nothing here');
    expect(createSecretMatcher([]).replaceAll('hunter22', R)).toBe('hunter22');
  });

  it('replaces overlapping secrets as one span, and adjacent ones each', () => {
    const matcher = createSecretMatcher(['abcd', 'cdef', 'bc', 'xyzw']);
    expect(matcher.replaceAll('_abcdef_', R)).toBe(`_${R}_`);
    expect(matcher.replaceAll('abcdxyzw', R)).toBe(`${R}${R}`);
    expect(matcher.replaceAll('zbcz', R)).toBe(`z${R}z`);
  });

  it('finds a secret that is a suffix of a longer, almost-matching one', () => {
    const matcher = createSecretMatcher(['aaab', 'ab12']);
    expect(matcher.replaceAll('aaaab12', R)).toBe(`a${R}`);
    expect(matcher.replaceAll('aab12', R)).toBe(`a${R}`);
  });

  it('matches UTF-16 text, surrogate pairs included', () => {
    const matcher = createSecretMatcher(['pässwörd', '🔑🔑key']);
    expect(matcher.replaceAll('x pässwörd y 🔑🔑key z', R)).toBe(`x ${R} y ${R} z`);
  });

  it('stays linear with 50,000 secrets over 1 MiB', () => {
    const secrets = Array.from({ length: 50_000 }, (_, i) => `secret-${i}-value`);
    const text = `${'secret-1-valu '.repeat(MiB / 14)}secret-49999-value`;
    const started = performance.now();
    const out = createSecretMatcher(secrets).replaceAll(text, R);
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(out.endsWith(R)).toBe(true);
  });

  it('stays linear on secrets that are prefixes of each other over a text of one repeated character', () => {
    const secrets = Array.from({ length: 1_000 }, (_, i) => `${'a'.repeat(i + 4)}b`);
    const started = performance.now();
    const out = createSecretMatcher(secrets).replaceAll('a'.repeat(MiB), R);
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(out.length).toBe(MiB);
  });

  it('stays linear with one 160 KB secret over 1 MiB of its near misses', () => {
    const secret = `${'a'.repeat(160 * 1024)}b`;
    const started = performance.now();
    const matcher = createSecretMatcher([secret]);
    expect(matcher.replaceAll(`${'a'.repeat(MiB)}b`, R)).toBe(`${'a'.repeat(MiB - 160 * 1024)}${R}`);
    expect(performance.now() - started).toBeLessThan(1_500);
  });

  it('builds and scans at once with one secret of 1 MiB', () => {
    const secret = 'x'.repeat(MiB);
    const started = performance.now();
    expect(createSecretMatcher([secret]).replaceAll(`a${secret}b`, R)).toBe(`a${R}b`);
    expect(performance.now() - started).toBeLessThan(1_500);
  });
});
