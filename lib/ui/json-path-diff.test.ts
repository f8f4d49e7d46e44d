import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { childPath, jsonPathDiff, sameJson } from './json-path-diff';

describe('jsonPathDiff', () => {
  it('lists added, removed and changed paths of objects, keys sorted', () => {
    expect(jsonPathDiff({ a: 1, b: 'x', c: true }, { a: 2, c: true, d: null }).changes).toEqual([
      { path: 'a', kind: 'changed', before: 1, after: 2 },
      { path: 'b', kind: 'removed', before: 'x' },
      { path: 'd', kind: 'added', after: null },
    ]);
  });

  it('names nested paths as a person reads them', () => {
    const diff = jsonPathDiff(
      { headers: { 'x-api-key': '[REDACTED]' }, items: [{ name: 'a' }] },
      { headers: { 'x-api-key': 'new' }, items: [{ name: 'b' }] },
    );
    expect(diff.changes.map((c) => c.path)).toEqual(['headers["x-api-key"]', 'items[0].name']);
  });

  it('aligns array items, so an insertion is one addition and not a change of every later item', () => {
    expect(jsonPathDiff({ list: [1, 2, 3] }, { list: [0, 1, 2, 3] }).changes).toEqual([
      { path: 'list[0]', kind: 'added', after: 0 },
    ]);
    expect(jsonPathDiff([1, 2, 3], [1, 3]).changes).toEqual([{ path: '[1]', kind: 'removed', before: 2 }]);
  });

  it('compares an item replaced in place field by field', () => {
    const before = [{ id: 1, v: 'a' }, { id: 2 }];
    const after = [{ id: 1, v: 'b' }, { id: 2 }];
    expect(jsonPathDiff(before, after).changes).toEqual([{ path: '[0].v', kind: 'changed', before: 'a', after: 'b' }]);
  });

  it('reports a change of type, and of the root, as one change', () => {
    expect(jsonPathDiff({ a: [1] }, { a: { 0: 1 } }).changes).toEqual([
      { path: 'a', kind: 'changed', before: [1], after: { 0: 1 } },
    ]);
    expect(jsonPathDiff('4', 4).changes).toEqual([{ path: '', kind: 'changed', before: '4', after: 4 }]);
  });

  it('is empty for equal values whatever their key order, and counts what is over the limit', () => {
    expect(jsonPathDiff({ a: 1, b: { c: 2, d: 3 } }, { b: { d: 3, c: 2 }, a: 1 }).changes).toEqual([]);
    const many = jsonPathDiff(
      Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, i])),
      Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, i + 1])),
      4,
    );
    expect(many.changes).toHaveLength(4);
    expect(many.more).toBe(6);
  });

  it('finds no change exactly when the values are equal (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        const { changes, more } = jsonPathDiff(a, b, 10_000);
        expect(changes.length + more === 0).toBe(sameJson(a, b));
      }),
    );
  });
});

describe('childPath', () => {
  it('uses dots for identifiers, brackets for indexes and other keys', () => {
    expect(childPath('', 'a')).toBe('a');
    expect(childPath('a', 'b')).toBe('a.b');
    expect(childPath('a', 2)).toBe('a[2]');
    expect(childPath('a', 'x y')).toBe('a["x y"]');
  });
});
