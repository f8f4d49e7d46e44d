/**
 * A call's `id` as `tool_calls` stores it: a UUID in its canonical form (lowercase, dashed, what
 * the executor makes) as its 16 bytes since migration 0012 — 20 bytes less than its 36 characters,
 * in the row and again in the unique index; any other id, and the ids of rows written before, as text.
 * Lookups by id pass both forms (`storedIdForms`), so old rows are found without a rewrite.
 */

/** What the `id` column holds. */
export type StoredId = Buffer | Uint8Array | string;

const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The stored form of `id`: its 16 bytes when it is a canonical UUID, else the text itself. */
export function encodeTraceId(id: string): StoredId {
  if (id.length !== 36 || !CANONICAL_UUID.test(id)) return id;
  return Buffer.from(id.slice(0, 8) + id.slice(9, 13) + id.slice(14, 18) + id.slice(19, 23) + id.slice(24), 'hex');
}

/** The id as the API knows it, from either stored form. */
export function decodeTraceId(stored: StoredId): string {
  if (typeof stored === 'string') return stored;
  const hex = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The named parameters of a lookup by id, `@id` (the stored form) and `@idText` (the text form,
 * which rows written before migration 0012 hold): `WHERE id IN (@id, @idText)` finds either.
 */
export function storedIdForms(id: string): { id: StoredId; idText: string } {
  return { id: encodeTraceId(id), idText: id };
}

/** `column`'s id as text in SQL, from either stored form (the canonical UUID of a 16-byte blob). */
export function idTextSql(column: string): string {
  const hex = `hex(${column})`;
  return `CASE WHEN typeof(${column}) = 'blob' THEN lower(substr(${hex}, 1, 8) || '-' || substr(${hex}, 9, 4) || '-' || substr(${hex}, 13, 4) || '-' || substr(${hex}, 17, 4) || '-' || substr(${hex}, 21)) ELSE ${column} END`;
}

/** The last `chars` characters of `column`'s id as text in SQL; a blob's come from its last bytes (at most 12). */
export function idTailSql(column: string, chars: number): string {
  // A blob's last bytes give an even number of hex digits, all within the UUID's last group.
  if (chars % 2 !== 0 || chars > 12)
    throw new RangeError(`an id tail of ${chars} characters is not a whole number of bytes`);
  return `CASE WHEN typeof(${column}) = 'blob' THEN lower(hex(substr(${column}, ${17 - chars / 2}))) ELSE substr(${column}, -${chars}) END`;
}

/** A canonical UUID in SQL's GLOB: 8-4-4-4-12 lowercase hex digits. */
const CANONICAL_UUID_GLOB = [8, 4, 4, 4, 12].map((digits) => '[0-9a-f]'.repeat(digits)).join('-');

/**
 * The part of migration 0012 that concerns ids: the calls still running or awaiting approval
 * get their id's 16 bytes, so that the write that finishes them (by id, or an upsert on the id)
 * finds their row. Finished calls keep their text: nothing writes them again, and every read by
 * id passes both forms. `drizzle/0012_compact_rows.sql` holds exactly this.
 */
export function unfinishedIdsToBytesSql(): string {
  return `UPDATE \`tool_calls\` SET \`id\` = unhex(replace(\`id\`, '-', ''))
	WHERE \`status\` IN ('running', 'awaiting_approval') AND status != 'succeeded' AND typeof(\`id\`) = 'text' AND \`id\` GLOB '${CANONICAL_UUID_GLOB}';`;
}
