import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { fts5LevelSegments, structureSql } from './fts5-structure';

/** An FTS5 table `docs` in memory with FTS5's own merges off: each transaction leaves a segment on level 0. */
function table(options = '') {
  const db = new Database(':memory:');
  db.exec(
    `CREATE VIRTUAL TABLE docs USING fts5(body${options}); INSERT INTO docs (docs, rank) VALUES ('automerge', 0)`,
  );
  const insert = db.prepare('INSERT INTO docs (rowid, body) VALUES (?, ?)');
  let rowid = 0;
  return {
    db,
    /** `count` transactions of one row each. */
    write(count: number) {
      for (let n = 0; n < count; n++) insert.run(++rowid, `text number ${rowid} ${'word '.repeat(rowid % 50)}`);
    },
    levels: () => fts5LevelSegments(db.prepare(structureSql('docs')).pluck().get() as Buffer),
  };
}

describe('fts5LevelSegments', () => {
  it('counts the segments of each level as SQLite leaves them', () => {
    const docs = table();
    docs.write(7);
    expect(docs.levels()).toEqual([7]);
    // A merge of the level (all of its segments) leaves one segment on the next level.
    docs.db.exec("INSERT INTO docs (docs, rank) VALUES ('merge', -1000)");
    expect(docs.levels()).toEqual([0, 1]);
    // New segments on level 0 (FTS5 may move a small one down beside them).
    docs.write(3);
    const total = (levels: number[] | null) => levels?.reduce((sum, count) => sum + count, 0);
    expect(total(docs.levels())).toBe(4);
    docs.db.exec("INSERT INTO docs (docs) VALUES ('optimize')");
    expect(total(docs.levels())).toBe(1);
  });

  it('counts past one byte per varint, and FTS5 merges a level whole at its crisismerge', () => {
    const docs = table();
    docs.db.exec("INSERT INTO docs (docs, rank) VALUES ('crisismerge', 300)");
    docs.write(200);
    expect(docs.levels()).toEqual([200]);
    docs.db.exec("INSERT INTO docs (docs, rank) VALUES ('crisismerge', 16)");
    docs.write(1);
    expect(docs.levels()).toEqual([0, 1]);
  });

  it('reads the version 2 record of a contentless_delete table', () => {
    const docs = table(", content='', contentless_delete=1");
    docs.write(5);
    const block = docs.db.prepare(structureSql('docs')).pluck().get() as Buffer;
    expect([...block.subarray(4, 8)]).toEqual([0xff, 0, 0, 1]);
    expect(docs.levels()).toEqual([5]);
  });

  it('answers null for what is not a structure record', () => {
    expect(fts5LevelSegments(null)).toBeNull();
    expect(fts5LevelSegments(Buffer.from([0, 0, 0]))).toBeNull();
    // Two levels announced, none there.
    expect(fts5LevelSegments(Buffer.from([0, 0, 0, 0, 2, 5, 0]))).toBeNull();
    // One level of two segments, but the record says three in all.
    expect(fts5LevelSegments(Buffer.from([0, 0, 0, 0, 1, 3, 0, 0, 2, 1, 1, 1, 2, 1, 1]))).toBeNull();
  });
});
