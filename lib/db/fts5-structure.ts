/**
 * FTS5 keeps the list of an index's segments, level by level, in one "structure record": the
 * row with id FTS5_STRUCTURE_ROWID of the table's `_data` shadow table. SQLite has no function
 * that says how many segments each level holds, which is what tells whether merging keeps up
 * (see `search-indexer.ts`), so this reads the record as `fts5StructureDecode` in SQLite's
 * `fts5_index.c` does. The format is on disk, so every SQLite version reads it the same way.
 *
 * Layout: a 4-byte cookie; the 4 bytes FF 00 00 01 when the record is version 2 (a table with
 * `contentless_delete`); then varints: levels, segments, write counter; then per level: segments
 * being merged, segments; per segment 3 varints (id, first and last page), 8 in version 2.
 */

/** The `_data` row of an FTS5 table that holds its structure record. */
export const FTS5_STRUCTURE_ROWID = 10;

/** The SQL that reads an FTS5 table's structure record. */
export function structureSql(table: string): string {
  return `SELECT block FROM \`${table}_data\` WHERE id = ${FTS5_STRUCTURE_ROWID}`;
}

/**
 * The number of segments on each level of an FTS5 index (level 0 first), from its structure
 * record; null when the record is not one (too short, or its counts do not add up).
 * @example fts5LevelSegments(db.prepare(structureSql('docs')).pluck().get()) // [3, 1]
 */
export function fts5LevelSegments(block: Uint8Array | null | undefined): number[] | null {
  if (!block || block.length < 4) return null;
  let at = 4;
  const v2 = block.length >= 8 && block[4] === 0xff && block[5] === 0 && block[6] === 0 && block[7] === 1;
  if (v2) at = 8;
  let broken = false;
  // SQLite's varint: big-endian groups of 7 bits, the high bit set on all but the last; the
  // ninth byte, if reached, gives 8 bits. Only the counts are kept: each fits in 32 bits.
  const varint = (): number => {
    let value = 0;
    for (let n = 0; n < 9; n++) {
      const byte = block[at++];
      if (byte === undefined) {
        broken = true;
        return 0;
      }
      if (n === 8) return value * 256 + byte;
      value = value * 128 + (byte & 0x7f);
      if ((byte & 0x80) === 0) return value;
    }
    return value;
  };
  const levels = varint();
  const segments = varint();
  varint(); // the write counter
  const perSegment = v2 ? 8 : 3;
  const counts: number[] = [];
  let total = 0;
  for (let level = 0; level < levels && !broken; level++) {
    varint(); // segments being merged
    const count = varint();
    counts.push(count);
    total += count;
    for (let n = 0; n < count * perSegment && !broken; n++) varint();
  }
  return broken || total !== segments ? null : counts;
}
