/**
 * The text search index over every stored call: an FTS5 table with the trigram tokenizer, so
 * that a search for any substring of three or more characters reads the rows holding all its
 * trigrams instead of every row.
 *
 * It holds only the index (`content=''`, `detail=none`, `columnsize=0`: no copy of the text, no
 * positions, no sizes) of the searched columns of every call (see `SEARCHED_COLUMNS`), one FTS
 * column each (so no trigram spans two of them): an index entry per distinct trigram of a call,
 * about a byte or two each.
 * The index narrows the rows; the search itself is still the LIKE test on the row's own columns
 * (see `sqlite-list-traces.ts`), so the two stores find exactly the same calls. A row is taken
 * out with FTS5's `delete` command and the text it was indexed with — the OLD row's values,
 * which the triggers have (`contentless_delete=1` would also keep a size per row).
 *
 * The indexer fills it after the writes (`search-indexer.ts`); triggers on `tool_calls` take out
 * or rewrite an indexed call that is deleted or changes a searched column (migration 0010).
 */

/** The columns a text search looks at (`TEXT_SEARCH` in `sqlite-list-traces.ts`). */
export const SEARCHED_COLUMNS = [
  'id',
  'tool_call_id',
  'session_id',
  // The error's JSON: its code, message and hint.
  'error',
  'arguments',
  'output',
  'stdout',
  'stderr',
] as const;

/** Fewest characters (code points) a search text needs to use the index: one trigram. */
export const SEARCH_INDEX_MIN_CHARS = 3;

/** The searched columns of the row `row` (NEW, OLD, or the table's own), as the index's column values. */
function valuesSql(row: 'NEW' | 'OLD' | null): string {
  return SEARCHED_COLUMNS.map((name) => (row === null ? `\`${name}\`` : `${row}.\`${name}\``)).join(', ');
}
// Named apart from the columns of `tool_calls`, which a search joins it with.
const indexColumns = SEARCHED_COLUMNS.map((name) => `\`${name}_trigrams\``).join(', ');

/**
 * Indexes the calls with `@from < seq <= @to` (they must not be in the index yet): what the indexer
 * runs (see `search-indexer.ts`), and a bulk load after its inserts.
 */
export const SEARCH_INDEX_FILL_SQL = `INSERT INTO \`tool_calls_search\` (\`rowid\`, ${indexColumns}) SELECT \`seq\`, ${valuesSql(null)} FROM \`tool_calls\` WHERE \`seq\` > @from AND \`seq\` <= @to`;

// A contentless table forgets a row by being told the text it indexed: the OLD row's values.
const deleteSql = `\tINSERT INTO \`tool_calls_search\` (\`tool_calls_search\`, \`rowid\`, ${indexColumns}) VALUES ('delete', OLD.\`seq\`, ${valuesSql('OLD')});`;
// Only rows the indexer has reached are in the index; it reads the others as they are when it gets there.
const indexedSql = 'OLD.`seq` <= (SELECT `indexed_upto` FROM `search_state`)';
const changedSql = SEARCHED_COLUMNS.map((name) => `OLD.\`${name}\` IS NOT NEW.\`${name}\``).join(' OR ');

/**
 * The SQL of migration 0010: the index, empty, with its mark at 0 (the indexer fills it from the
 * oldest call on, in the background, when the store opens: a large database opens at once), and
 * the triggers that put right an indexed call that changes or is deleted.
 * `drizzle/0010_search_index.sql` holds exactly this.
 */
export function searchIndexSql(): string {
  return `CREATE VIRTUAL TABLE \`tool_calls_search\` USING fts5(${indexColumns}, tokenize = 'trigram', detail = none, content = '', columnsize = 0);
--> statement-breakpoint
CREATE TABLE \`search_state\` (\`indexed_upto\` integer NOT NULL);
--> statement-breakpoint
INSERT INTO \`search_state\` (\`indexed_upto\`) VALUES (0);
--> statement-breakpoint
CREATE TRIGGER \`tool_calls_search_after_update\` AFTER UPDATE OF ${SEARCHED_COLUMNS.map((name) => `\`${name}\``).join(', ')} ON \`tool_calls\`
\tWHEN (${changedSql}) AND ${indexedSql} BEGIN
${deleteSql}
\tINSERT INTO \`tool_calls_search\` (\`rowid\`, ${indexColumns}) VALUES (NEW.\`seq\`, ${valuesSql('NEW')});
END;
--> statement-breakpoint
CREATE TRIGGER \`tool_calls_search_after_delete\` AFTER DELETE ON \`tool_calls\`
\tWHEN ${indexedSql} BEGIN
${deleteSql}
END;
`;
}

/** The code points of `text` (a surrogate pair is one character, as SQLite and the tokenizer count them). */
function characters(text: string): string[] {
  return Array.from(text);
}

/** Whether a search for `text` can use the index: at least one trigram. */
export function usesSearchIndex(text: string): boolean {
  return characters(text).length >= SEARCH_INDEX_MIN_CHARS;
}

/** More trigrams than this and the query takes a cover of them instead of every one. */
const MAX_TRIGRAMS = 8;

/**
 * The FTS5 query that finds the rows holding every trigram of `text` (a superset of the rows
 * containing `text`, ignoring case): each trigram a quoted string, all of them required. A long
 * text uses trigrams that cover it without overlap (and its last one), which narrows as well
 * for far fewer doclists to read.
 * @example searchIndexQuery('Paris') // '"Par" "ari" "ris"'
 */
export function searchIndexQuery(text: string): string {
  const chars = characters(text);
  const starts: number[] = [];
  const last = chars.length - SEARCH_INDEX_MIN_CHARS;
  const step = last + 1 > MAX_TRIGRAMS ? SEARCH_INDEX_MIN_CHARS : 1;
  for (let start = 0; start <= last; start += step) starts.push(start);
  if (starts.at(-1) !== last) starts.push(last);
  const trigrams = new Set(starts.map((start) => chars.slice(start, start + SEARCH_INDEX_MIN_CHARS).join('')));
  return [...trigrams].map((trigram) => `"${trigram.replaceAll('"', '""')}"`).join(' ');
}
