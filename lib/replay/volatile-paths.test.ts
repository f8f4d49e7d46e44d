import { describe, expect, it } from 'vitest';
import type { PathChange } from '../ui/json-path-diff';
import { childPath, jsonPathDiff } from '../ui/json-path-diff';
import { DEFAULT_IGNORE_RULES, ignoreRules, parseGlob, pathSegments, splitVolatile } from './volatile-paths';

const changed = (path: string, before: unknown, after: unknown): PathChange => ({
  path,
  kind: 'changed',
  before,
  after,
});

describe('pathSegments', () => {
  it('reads the paths jsonPathDiff writes, back into keys and indexes', () => {
    expect(pathSegments('')).toEqual([]);
    expect(pathSegments('a.b')).toEqual(['a', 'b']);
    expect(pathSegments('items[2].name')).toEqual(['items', 2, 'name']);
    expect(pathSegments('headers["x-request-id"]')).toEqual(['headers', 'x-request-id']);
    expect(pathSegments('[0]["a.b"]["0"]')).toEqual([0, 'a.b', '0']);
    expect(pathSegments('a["say \\"hi\\""]')).toEqual(['a', 'say "hi"']);
    for (const bad of ['a.', '.a', 'a..b', 'a[', 'a[x]', 'a["x]']) expect(pathSegments(bad), bad).toBeNull();
  });

  it('round-trips every key childPath writes', () => {
    const keys: (string | number)[] = ['plain', 'x-y', 'a.b', '', '0', 'with "quotes"', 3, 'ünï', '[x]'];
    let path = '';
    for (const key of keys) path = childPath(path, key);
    expect(pathSegments(path)).toEqual(keys);
  });
});

describe('parseGlob', () => {
  it('takes keys, `*`, `**`, indexes and quoted keys', () => {
    for (const ok of [
      'headers.date',
      '*.timestamp',
      '**.request_id',
      'items[*].id',
      'a[0]',
      'headers["x.y"]',
      '**.*_at',
    ]) {
      expect(parseGlob(ok).ok, ok).toBe(true);
    }
  });

  it('refuses what is no path, and wildcards alone, saying why', () => {
    expect(parseGlob('')).toEqual({ ok: false, message: 'an empty path' });
    expect(parseGlob('a..b')).toMatchObject({ ok: false, message: expect.stringContaining('is not a path') });
    expect(parseGlob('**')).toMatchObject({ ok: false, message: expect.stringContaining('wildcards only') });
    expect(parseGlob('*.**')).toMatchObject({ ok: false, message: expect.stringContaining('wildcards only') });
    expect(parseGlob('x'.repeat(300))).toMatchObject({ ok: false, message: 'at most 256 characters' });
    expect(parseGlob(Array(40).fill('a').join('.'))).toMatchObject({ ok: false, message: 'at most 32 segments' });
  });
});

describe('ignoreRules: the defaults', () => {
  const rules = ignoreRules();

  it('ignores volatile response headers at any depth, also when one side lacks them', () => {
    expect(
      rules.match(changed('headers.date', 'Mon, 01 Jun 2026 10:00:00 GMT', 'Mon, 01 Jun 2026 10:00:01 GMT'))?.pattern,
    ).toBe('**.headers.date');
    expect(rules.match(changed('response.headers["x-request-id"]', 'a', 'b'))?.pattern).toBe('**.headers.x-request-id');
    expect(rules.match({ path: 'headers["X-Request-Id"]', kind: 'added', after: 'b' })).not.toBeNull();
    expect(rules.match(changed('headers["content-type"]', 'text/plain', 'application/json'))).toBeNull();
  });

  it('ignores timestamps at time keys: ISO-8601 and HTTP dates, epoch seconds and milliseconds', () => {
    expect(rules.match(changed('created_at', '2026-01-01T00:00:00Z', '2026-01-01T00:00:05.123Z'))?.pattern).toBe(
      '**.*_at',
    );
    expect(
      rules.match(changed('item.updatedAt', '2026-01-01T00:00:00+02:00', '2026-01-02T00:00:00+02:00')),
    ).not.toBeNull();
    expect(rules.match(changed('timestamp', 1_767_225_600_000, 1_767_225_601_000))?.pattern).toBe('**.timestamp');
    expect(rules.match(changed('log[3].time', 1_767_225_600, 1_767_225_660))).not.toBeNull();
    expect(rules.match(changed('date', '2026-01-01', '2026-01-02'))).not.toBeNull();
    expect(
      rules.match(changed('meta.date', 'Thu, 01 Jan 2026 00:00:00 GMT', 'Thu, 01 Jan 2026 00:00:01 GMT')),
    ).not.toBeNull();
  });

  it('keeps a time key whose values are no timestamps, or of two kinds, or that appeared', () => {
    expect(rules.match(changed('date', 'tomorrow', 'today'))).toBeNull();
    expect(rules.match(changed('time', 12, 13))).toBeNull();
    expect(rules.match(changed('created_at', '2026-01-01T00:00:00Z', 1_767_225_600_000))).toBeNull();
    expect(rules.match({ path: 'created_at', kind: 'added', after: '2026-01-01T00:00:00Z' })).toBeNull();
    expect(rules.match(changed('created_at', '2026-13-45T99:00:00Z', '2026-01-01T00:00:00Z'))).toBeNull();
  });

  it('never ignores the whole output, nor a key that is no time key', () => {
    expect(rules.match(changed('', '2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z'))).toBeNull();
    expect(rules.match(changed('result', 1_767_225_600_000, 1_767_225_601_000))).toBeNull();
    expect(rules.match(changed('request_id', 'a', 'b'))).toBeNull();
  });

  it('are the documented list', () => {
    expect(DEFAULT_IGNORE_RULES.map((rule) => rule.pattern)).toContain('**.headers.date');
    expect(DEFAULT_IGNORE_RULES.every((rule) => rule.source === 'default')).toBe(true);
  });
});

describe('ignoreRules: the config', () => {
  it('adds glob paths, matched whatever the values', () => {
    const rules = ignoreRules(['*.timestamp', '**.request_id', 'items[*].id', 'body.trace', 'headers["x.y"]']);
    expect(rules.match(changed('event.timestamp', 'a', 'b'))?.pattern).toBe('*.timestamp');
    expect(rules.match(changed('a.event.timestamp', 'a', 'b'))).toBeNull();
    expect(rules.match(changed('request_id', 1, 2))?.pattern).toBe('**.request_id');
    expect(rules.match(changed('a.b[3].request_id', 1, 2))?.pattern).toBe('**.request_id');
    expect(rules.match(changed('items[4].id', 1, 2))?.pattern).toBe('items[*].id');
    expect(rules.match(changed('items[4].name', 1, 2))).toBeNull();
    expect(rules.match({ path: 'body.trace', kind: 'removed', before: { deep: true } })?.pattern).toBe('body.trace');
    expect(rules.match(changed('body.trace.inner', 1, 2))).toBeNull();
    expect(rules.match(changed('headers["x.y"]', 1, 2))?.pattern).toBe('headers["x.y"]');
    expect(rules.rules.filter((rule) => rule.source === 'config')).toHaveLength(5);
  });

  it('splits a diff into real changes and ignored ones, each with its rule', () => {
    const diff = jsonPathDiff(
      { status: 200, headers: { date: 'a' }, body: { id: 1, at: 2 } },
      { status: 201, headers: { date: 'b' }, body: { id: 2, at: 2 } },
    );
    const { real, ignored } = splitVolatile(diff.changes, ignoreRules(['body.id']));
    expect(real.map((change) => change.path)).toEqual(['status']);
    expect(ignored.map((change) => [change.path, change.rule])).toEqual([
      ['body.id', 'body.id'],
      ['headers.date', '**.headers.date'],
    ]);
  });
});
