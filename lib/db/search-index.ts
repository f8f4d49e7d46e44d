/**
 * The text search index over every stored call: an FTS5 table with the trigram tokenizer, so
 * that a search for any substring of three or more characters reads the rows holding all its
 * trigrams instead of every row.
 *
 * It holds only the index (`content=''`, `detail=none`, `columnsize=0`: no copy of the text, no
 * positions, no sizes) of the searched columns of every call (see `SEARCHED_COLUMNS`), one FTS
 * column each (so no trigram spans two of them): an index entry per distinct trigram of a call,
 * about a byte or two each. The two ids are indexed by their last ID_TAIL_CHARS characters only
 * (see `ID_TAIL_CHARS`).
 * The index narrows the rows; the search itself is still the LIKE test on the row's own columns
 * (see `sqlite-list-traces.ts`), so the two stores find exactly the same calls. A row is taken
 * out with FTS5's `delete` command and the text it was indexed with — the OLD row's values,
 * which the triggers have (`contentless_delete=1` would also keep a size per row).
 *
 * The indexer fills it after the writes (`search-indexer.ts`), and merges its segments itself in
 * small steps (`automerge` is 0: FTS5's own merges ran inside a step and paused the server for
 * tens of milliseconds); triggers on `tool_calls` take out or rewrite an indexed call that is
 * deleted or changes a searched column (migration 0011, which replaced 0010's index).
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

/**
 * The characters (code points) of a call's two ids that the index holds: their last ones. A
 * search finds an id by any text within them (the UI shows a trace id's last 8), or by a text
 * that ends it, the whole id included (see `idMatches`). The random middle of every id, two
 * dozen distinct trigrams each, was 45 % of the index and 70 % of the indexing time.
 */
export const ID_TAIL_CHARS = 12;
/** The searched columns indexed by their tail (ID_TAIL_CHARS), not whole. */
export const TAIL_INDEXED_COLUMNS: ReadonlySet<string> = new Set(['id', 'tool_call_id']);

/** The searched columns of the row `row` (NEW, OLD, or the table's own), as the index's column values. */
function valuesSql(row: 'NEW' | 'OLD' | null): string {
  return SEARCHED_COLUMNS.map((name) => {
    const column = row === null ? `\`${name}\`` : `${row}.\`${name}\``;
    return TAIL_INDEXED_COLUMNS.has(name) ? `substr(${column}, -${ID_TAIL_CHARS})` : column;
  }).join(', ');
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
 * The SQL of migration 0011 (0010 created the first index, its mark and its triggers): the index
 * again, empty, its ids by their tails and FTS5's automerge off, the mark back at 0 (the indexer
 * fills it from the oldest call on, in the background, when the store opens: a large database
 * opens at once), and the triggers that put right an indexed call that changes or is deleted.
 * `drizzle/0011_search_id_tails.sql` holds exactly this.
 */
export function searchIndexSql(): string {
  return `DROP TRIGGER \`tool_calls_search_after_update\`;
--> statement-breakpoint
DROP TRIGGER \`tool_calls_search_after_delete\`;
--> statement-breakpoint
DROP TABLE \`tool_calls_search\`;
--> statement-breakpoint
CREATE VIRTUAL TABLE \`tool_calls_search\` USING fts5(${indexColumns}, tokenize = 'trigram', detail = none, content = '', columnsize = 0);
--> statement-breakpoint
INSERT INTO \`tool_calls_search\` (\`tool_calls_search\`, \`rank\`) VALUES ('automerge', 0);
--> statement-breakpoint
UPDATE \`search_state\` SET \`indexed_upto\` = 0;
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
 * for far fewer doclists to read. A text longer than ID_TAIL_CHARS also finds the rows holding
 * the trigrams of its last ID_TAIL_CHARS characters: those whose id it may end.
 * @example searchIndexQuery('Paris') // '"Par" "ari" "ris"'
 */
export function searchIndexQuery(text: string): string {
  const chars = characters(text);
  const anywhere = trigramsQuery(chars);
  if (chars.length <= ID_TAIL_CHARS) return anywhere;
  // A longer text may end an id: its own last characters are then the id's indexed tail.
  return `(${anywhere}) OR (${trigramsQuery(chars.slice(-ID_TAIL_CHARS))})`;
}

/** Every trigram of `chars`, or a cover of them when there are many: see `searchIndexQuery`. */
function trigramsQuery(chars: readonly string[]): string {
  const starts: number[] = [];
  const last = chars.length - SEARCH_INDEX_MIN_CHARS;
  const step = last + 1 > MAX_TRIGRAMS ? SEARCH_INDEX_MIN_CHARS : 1;
  for (let start = 0; start <= last; start += step) starts.push(start);
  if (starts.at(-1) !== last) starts.push(last);
  const trigrams = new Set(starts.map((start) => chars.slice(start, start + SEARCH_INDEX_MIN_CHARS).join('')));
  return [...trigrams].map((trigram) => `"${trigram.replaceAll('"', '""')}"`).join(' ');
}
