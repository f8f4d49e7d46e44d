import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { prepareByPosition, toPositional } from './bind-by-position';
import { TRACE_WRITE_SQL } from './sqlite-trace-store';

describe('toPositional', () => {
  it('turns each @name into ? and lists the names in order, a name used twice twice', () => {
    expect(toPositional('UPDATE t SET a = @a, b = @b + @a WHERE id = @id')).toEqual({
      sql: 'UPDATE t SET a = ?, b = ? + ? WHERE id = ?',
      names: ['a', 'b', 'a', 'id'],
    });
  });

  it('leaves an @ inside quoted text and quoted names alone', () => {
    expect(toPositional(`SELECT '@not', 'it''s @x', "@col", \`@c\`, [@d], @real`)).toEqual({
      sql: `SELECT '@not', 'it''s @x', "@col", \`@c\`, [@d], ?`,
      names: ['real'],
    });
  });

  it('refuses the :name and $name forms rather than leave them unbound', () => {
    expect(() => toPositional('SELECT :a')).toThrow(/only @name/);
    expect(() => toPositional('SELECT $a, @b')).toThrow(/only @name/);
    expect(toPositional("SELECT ':a', '$b'").names).toEqual([]);
  });

  it('rewrites every statement of the write path with as many ? as it had parameters', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (x)');
    for (const sql of Object.values(TRACE_WRITE_SQL)) {
      const { sql: positional, names } = toPositional(sql);
      expect(positional).not.toMatch(/@[A-Za-z_]/);
      expect(names.length).toBe(positional.split('?').length - 1);
    }
  });
});

describe('prepareByPosition', () => {
  const open = () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE t (id TEXT PRIMARY KEY, a, b, blob BLOB)');
    return db;
  };

  it('writes what the same statement run with named parameters writes', () => {
    const db = open();
    const sql = 'INSERT INTO t (id, a, b, blob) VALUES (@id, @a, @b || @a, @blob)';
    const values = { id: 'x', a: 'one', b: 'two', blob: Buffer.from([0, 1, 2]), unused: 'ignored' };
    const result = prepareByPosition<typeof values>(db, sql).run(values);
    expect(result.changes).toBe(1);
    db.prepare(sql).run({ id: 'y', a: 'one', b: 'two', blob: Buffer.from([0, 1, 2]) });
    const rows = db.prepare('SELECT a, b, blob FROM t ORDER BY id').all();
    expect(rows[0]).toEqual(rows[1]);
    expect(rows[0]).toEqual({ a: 'one', b: 'twoone', blob: Buffer.from([0, 1, 2]) });
  });

  it('binds null, numbers and big texts, and runs again with other values', () => {
    const db = open();
    const insert = prepareByPosition<Record<string, unknown>>(db, 'INSERT INTO t (id, a, b) VALUES (@id, @a, @b)');
    insert.run({ id: '1', a: null, b: 1.5 });
    insert.run({ id: '2', a: 'z'.repeat(100_000), b: -3 });
    expect(db.prepare('SELECT id, length(a) AS a, b FROM t ORDER BY id').all()).toEqual([
      { id: '1', a: null, b: 1.5 },
      { id: '2', a: 100_000, b: -3 },
    ]);
  });

  it('says which named parameter is missing, as better-sqlite3 does, and writes nothing', () => {
    const db = open();
    const insert = prepareByPosition<Record<string, unknown>>(db, 'INSERT INTO t (id, a) VALUES (@id, @a)');
    expect(() => insert.run({ id: '1' })).toThrow(/Missing named parameter "a"/);
    expect(() => db.prepare('INSERT INTO t (id, a) VALUES (@id, @a)').run({ id: '1' })).toThrow(
      /Missing named parameter "a"/,
    );
    expect(db.prepare('SELECT count(*) FROM t').pluck().get()).toBe(0);
    insert.run({ id: '1', a: 'after a failure' });
    expect(db.prepare('SELECT a FROM t').pluck().get()).toBe('after a failure');
  });

  it('binds a property that is there but undefined as NULL, as better-sqlite3 does', () => {
    const db = open();
    prepareByPosition<Record<string, unknown>>(db, 'INSERT INTO t (id, a) VALUES (@id, @a)').run({
      id: '1',
      a: undefined,
    });
    db.prepare('INSERT INTO t (id, a) VALUES (@id, @a)').run({ id: '2', a: undefined });
    expect(db.prepare('SELECT id, a FROM t ORDER BY id').all()).toEqual([
      { id: '1', a: null },
      { id: '2', a: null },
    ]);
  });
});
