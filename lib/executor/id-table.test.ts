import { describe, expect, it } from 'vitest';
import { IdTable } from './id-table';

describe('IdTable', () => {
  it('gets, sets, deletes and counts like a Map of string ids', () => {
    const table = new IdTable<{ n: number }>();
    const one = { n: 1 };
    expect(table.set('0190a-one', one).set('0190b-two', { n: 2 }).size).toBe(2);
    expect(table.get('0190a-one')).toBe(one);
    expect(table.has('0190b-two')).toBe(true);
    table.set('0190a-one', { n: 3 });
    expect(table.size).toBe(2);
    expect(table.get('0190a-one')).toEqual({ n: 3 });
    expect(table.delete('0190a-one')).toBe(true);
    expect(table.delete('0190a-one')).toBe(false);
    expect(table.get('0190a-one')).toBeUndefined();
    expect(table.has('0190a-one')).toBe(false);
    expect(table.size).toBe(1);
    table.clear();
    expect(table.size).toBe(0);
    expect(table.keys()).toEqual([]);
  });

  it('keeps ids in insertion order, and takes any string as an id (no prototype to collide with)', () => {
    const table = new IdTable<string>();
    for (const id of ['c', '__proto__', 'a', 'constructor', 'toString', 'b']) table.set(id, `value of ${id}`);
    expect(table.keys()).toEqual(['c', '__proto__', 'a', 'constructor', 'toString', 'b']);
    expect(table.values()).toEqual(table.keys().map((id) => `value of ${id}`));
    expect(table.get('hasOwnProperty')).toBeUndefined();
    expect(table.get('__proto__')).toBe('value of __proto__');
    table.delete('a');
    table.set('a', 'again');
    expect(table.keys()).toEqual(['c', '__proto__', 'constructor', 'toString', 'b', 'a']);
  });

  it('stays correct over many ids coming and going (what calls in flight do)', () => {
    const table = new IdTable<number>();
    const live = new Set<string>();
    for (let i = 0; i < 20_000; i++) {
      const id = `call-${i}`;
      table.set(id, i);
      live.add(id);
      if (i >= 50) {
        const gone = `call-${i - 50}`;
        expect(table.delete(gone)).toBe(true);
        live.delete(gone);
      }
    }
    expect(table.size).toBe(50);
    expect(table.keys()).toEqual([...live]);
  });
});
