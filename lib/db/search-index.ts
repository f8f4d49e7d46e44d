/**
 * The text search index over every stored call: an FTS5 table with the trigram tokenizer, so
 * that a search for any substring of three or more characters reads the rows holding all its
 * trigrams instead of every row.
 *
 * It holds only the index (`content=''`, `detail=none`: no copy of the text, no positions), one
 * document per call made of the searched columns (see `SEARCHED_COLUMNS`): an index entry per
 * distinct trigram of a call, about a byte or two each. The index narrows the rows; the search
 * itself is still the LIKE test on the row's own columns (see `sqlite-list-traces.ts`), so the
 * two stores find exactly the same calls. `contentless_delete=1` lets a row be taken out when a
 * call changes or is deleted.
 *
 * Triggers on `tool_calls` keep it (migration 0010): a call is indexed in the statement that
 * writes it, inside the group commit's transaction, and most calls are written once (their
 * begin is deferred to their finish); a call written again is indexed again only when a searched
 * column changed.
 */

/** The columns a text search looks at (`TEXT_SEARCH` in `sqlite-list-traces.ts`). */
export const SEARCHED_COLUMNS = [
  'id',
  'tool_call_id',
  'session_id',
  'error_code',
  'arguments',
  'output',
  'stdout',
  'stderr',
] as const;

/** Fewest characters (code points) a search text needs to use the index: one trigram. */
export const SEARCH_INDEX_MIN_CHARS = 3;

/** The document of the row `row` (NEW, OLD or none for the table itself): the searched columns, one a line. */
function documentSql(row: 'NEW' | null): string {
  const column = (name: string) => (row === null ? `\`${name}\`` : `${row}.\`${name}\``);
  return SEARCHED_COLUMNS.map((name) => `coalesce(${column(name)}, '')`).join(' || char(10) || ');
}

const changedSql = SEARCHED_COLUMNS.map((name) => `OLD.\`${name}\` IS NOT NEW.\`${name}\``).join(' OR ');

/**
 * The SQL of migration 0010: the index, filled from the calls already
 * stored, and the triggers that keep it. `drizzle/0010_search_index.sql` holds exactly this.
 */
export function searchIndexSql(): string {
  return `CREATE VIRTUAL TABLE \`tool_calls_search\` USING fts5(\`body\`, tokenize = 'trigram', detail = none, content = '', contentless_delete = 1);
--> statement-breakpoint
INSERT INTO \`tool_calls_search\` (\`rowid\`, \`body\`) SELECT \`seq\`, ${documentSql(null)} FROM \`tool_calls\`;
--> statement-breakpoint
CREATE TRIGGER \`tool_calls_search_after_insert\` AFTER INSERT ON \`tool_calls\` BEGIN
\tINSERT INTO \`tool_calls_search\` (\`rowid\`, \`body\`) VALUES (NEW.\`seq\`, ${documentSql('NEW')});
END;
--> statement-breakpoint
CREATE TRIGGER \`tool_calls_search_after_update\` AFTER UPDATE OF ${SEARCHED_COLUMNS.map((name) => `\`${name}\``).join(', ')} ON \`tool_calls\`
\tWHEN ${changedSql} BEGIN
\tDELETE FROM \`tool_calls_search\` WHERE \`rowid\` = OLD.\`seq\`;
\tINSERT INTO \`tool_calls_search\` (\`rowid\`, \`body\`) VALUES (NEW.\`seq\`, ${documentSql('NEW')});
END;
--> statement-breakpoint
CREATE TRIGGER \`tool_calls_search_after_delete\` AFTER DELETE ON \`tool_calls\` BEGIN
\tDELETE FROM \`tool_calls_search\` WHERE \`rowid\` = OLD.\`seq\`;
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
