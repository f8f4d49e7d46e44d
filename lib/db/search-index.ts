import { idTailSql } from './trace-id';

/**
 * The text search index over every stored call: an FTS5 table with the trigram tokenizer, so
 * that a search for any substring of three or more characters reads the rows holding all its
 * trigrams instead of every row.
 *
 * It holds only the index (`content=''`, `detail=none`, `columnsize=0`: no copy of the text, no
 * positions, no sizes) of the searched columns of every call (see `SEARCHED_COLUMNS`) but the
 * session id, one FTS column each (so no trigram spans two of them): an index entry per distinct
 * trigram of a call, about a byte or two each. The two ids are indexed by their last
 * ID_TAIL_CHARS characters only (see `ID_TAIL_CHARS`), in a table of their own (see
 * `SEARCH_TABLES`). A session id, which a search matches by its start, is not in the index
 * (migration 0013): the search finds those calls through the `sessions` table and the session
 * index of `tool_calls` (see `sqlite-list-traces.ts`), which cost nothing more.
 * The index narrows the rows; the search itself is still the LIKE test on the row's own columns
 * (see `sqlite-list-traces.ts`), so the two stores find exactly the same calls. A row is taken
 * out with FTS5's `delete` command and the text it was indexed with — the OLD row's values,
 * which the triggers have (`contentless_delete=1` would also keep a size per row).
 *
 * The indexer fills it after the writes (`search-indexer.ts`), and merges its segments itself in
 * small steps (`automerge` is 0: FTS5's own merges ran inside a step and paused the server for
 * tens of milliseconds); triggers on `tool_calls` take out or rewrite an indexed call that is
 * deleted or changes an indexed column (migration 0013, which replaced 0011's index, which
 * replaced 0010's).
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
 * dozen distinct trigrams each, was 45 % of the index and 70 % of the indexing time; the last 12
 * (migrations 0011 and 0012) took 43 bytes a call at 200,000 calls, the last 8 take 29.
 */
export const ID_TAIL_CHARS = 8;
/** The ids' tail of migrations 0011 and 0012, whose SQL is generated here too. */
const ID_TAIL_CHARS_0011 = 12;
/** The searched columns indexed by their tail (ID_TAIL_CHARS), not whole. */
export const TAIL_INDEXED_COLUMNS: ReadonlySet<string> = new Set(['id', 'tool_call_id']);

/**
 * The characters (code points) of each searched text column a search reads: its first ones. An
 * output of 1 MiB took 0.1–0.5 s of the event loop to index on the 2-core machine, in one step
 * (12 such calls finishing together stalled the server for over a second); this much is 6–30 ms.
 * The LIKE test reads the same head (`searchedText` in SQL, `searchedHead` in memory), so the
 * two stores, and the calls above and below the index's mark, find the same calls.
 */
export const SEARCHED_TEXT_CHARS = 64 * 1024;

/**
 * How the SQL reads the `id` column: `stored`, in either form (16 bytes or text, see
 * `trace-id.ts`, since migration 0012); `text`, as migration 0011 wrote it, before ids were bytes.
 */
type IdForm = 'stored' | 'text';

/**
 * A searched column as the index and the LIKE test read it: an id's tail (of `tail` characters,
 * ID_TAIL_CHARS but in the SQL of older migrations), a text's head, a session id whole.
 */
export function searchedText(
  column: (typeof SEARCHED_COLUMNS)[number],
  row: 'NEW' | 'OLD' | null = null,
  ids: IdForm = 'stored',
  tail: number = ID_TAIL_CHARS,
): string {
  const name = row === null ? `\`${column}\`` : `${row}.\`${column}\``;
  if (column === 'id' && ids === 'stored') return idTailSql(name, tail);
  if (TAIL_INDEXED_COLUMNS.has(column)) return `substr(${name}, -${tail})`;
  if (column === 'session_id') return name;
  return `substr(${name}, 1, ${SEARCHED_TEXT_CHARS})`;
}

/** One FTS5 table of the index and the searched columns it holds, one FTS column each. */
interface SearchTable {
  readonly name: 'tool_calls_search' | 'tool_calls_id_search';
  readonly columns: readonly (typeof SEARCHED_COLUMNS)[number][];
  /** The characters of an id it holds (see ID_TAIL_CHARS). */
  readonly tail: number;
}

/**
 * The two FTS5 tables of the index: the ids' tails apart from the text, so that a search for
 * an id's end reads the ids alone (random, their trigrams rare) and not every call whose text
 * holds the same common trigrams; each has its own update and delete triggers.
 */
export const SEARCH_TABLES: readonly [SearchTable, SearchTable] = [
  { name: 'tool_calls_search', columns: ['error', 'arguments', 'output', 'stdout', 'stderr'], tail: ID_TAIL_CHARS },
  { name: 'tool_calls_id_search', columns: ['id', 'tool_call_id'], tail: ID_TAIL_CHARS },
];
/** The tables as migrations 0011 and 0012 made them: the session id in the text's table, the ids' last 12. */
const SEARCH_TABLES_0011: readonly [SearchTable, SearchTable] = [
  {
    name: 'tool_calls_search',
    columns: ['session_id', 'error', 'arguments', 'output', 'stdout', 'stderr'],
    tail: ID_TAIL_CHARS_0011,
  },
  { name: 'tool_calls_id_search', columns: ['id', 'tool_call_id'], tail: ID_TAIL_CHARS_0011 },
];

/** The columns of `table` in the row `row` (NEW, OLD, or the table's own), as the index's column values. */
function valuesSql(table: SearchTable, row: 'NEW' | 'OLD' | null, ids: IdForm = 'stored'): string {
  return table.columns.map((name) => searchedText(name, row, ids, table.tail)).join(', ');
}
// Named apart from the columns of `tool_calls`, which a search joins it with.
const indexColumns = (table: SearchTable) => table.columns.map((name) => `\`${name}_trigrams\``).join(', ');

/**
 * Index the calls with `@from < seq <= @to` (they must not be in the index yet), one statement
 * per table: what the indexer runs (see `search-indexer.ts`), and a bulk load after its inserts.
 */
export const SEARCH_INDEX_FILL_SQL: readonly string[] = SEARCH_TABLES.map(
  (table) =>
    `INSERT INTO \`${table.name}\` (\`rowid\`, ${indexColumns(table)}) SELECT \`seq\`, ${valuesSql(table, null)} FROM \`tool_calls\` WHERE \`seq\` > @from AND \`seq\` <= @to`,
);

// A contentless table forgets a row by being told the text it indexed: the OLD row's values.
const deleteSql = (table: SearchTable, ids: IdForm) =>
  `\tINSERT INTO \`${table.name}\` (\`${table.name}\`, \`rowid\`, ${indexColumns(table)}) VALUES ('delete', OLD.\`seq\`, ${valuesSql(table, 'OLD', ids)});`;
// Only rows the indexer has reached are in the index; it reads the others as they are when it gets there.
const indexedSql = 'OLD.`seq` <= (SELECT `indexed_upto` FROM `search_state`)';
const changedSql = (table: SearchTable) =>
  table.columns.map((name) => `OLD.\`${name}\` IS NOT NEW.\`${name}\``).join(' OR ');

/** One table of the index, empty, FTS5's automerge off, and its triggers reading the ids in form `ids`. */
function tableSql(table: SearchTable, ids: IdForm): string {
  return `CREATE VIRTUAL TABLE \`${table.name}\` USING fts5(${indexColumns(table)}, tokenize = 'trigram', detail = none, content = '', columnsize = 0);
--> statement-breakpoint
INSERT INTO \`${table.name}\` (\`${table.name}\`, \`rank\`) VALUES ('automerge', 0);
--> statement-breakpoint
${triggersSql(table, ids)}`;
}

/** Drops a table of the index and its two triggers. */
function dropTableSql(table: SearchTable): string {
  return `DROP TRIGGER \`${table.name}_after_update\`;
--> statement-breakpoint
DROP TRIGGER \`${table.name}_after_delete\`;
--> statement-breakpoint
DROP TABLE \`${table.name}\`;
--> statement-breakpoint
`;
}

/** The update and delete triggers of one table of the index, reading the ids in form `ids`. */
function triggersSql(table: SearchTable, ids: IdForm): string {
  return `CREATE TRIGGER \`${table.name}_after_update\` AFTER UPDATE OF ${table.columns.map((name) => `\`${name}\``).join(', ')} ON \`tool_calls\`
\tWHEN (${changedSql(table)}) AND ${indexedSql} BEGIN
${deleteSql(table, ids)}
\tINSERT INTO \`${table.name}\` (\`rowid\`, ${indexColumns(table)}) VALUES (NEW.\`seq\`, ${valuesSql(table, 'NEW', ids)});
END;
--> statement-breakpoint
CREATE TRIGGER \`${table.name}_after_delete\` AFTER DELETE ON \`tool_calls\`
\tWHEN ${indexedSql} BEGIN
${deleteSql(table, ids)}
END;
`;
}

/**
 * The part of migration 0012 that concerns the index: the triggers of the ids' table again,
 * reading a 16-byte id's tail as the text the index holds (`idTailSql`), so that they take out
 * of the index the very text the indexer put in. The index itself is unchanged: an id's tail
 * reads the same in either form. `drizzle/0012_compact_rows.sql` holds exactly this.
 */
export function searchIdTriggersSql(): string {
  const table = SEARCH_TABLES_0011[1];
  return `DROP TRIGGER \`${table.name}_after_update\`;
--> statement-breakpoint
DROP TRIGGER \`${table.name}_after_delete\`;
--> statement-breakpoint
${triggersSql(table, 'stored')}`;
}

/**
 * The SQL of migration 0011 (0010 created the first index, its mark and its triggers): the index
 * again as two tables (see SEARCH_TABLES), empty, the ids by their tails and FTS5's automerge
 * off, the mark back at 0 (the indexer fills it from the oldest call on, in the background, when
 * the store opens: a large database opens at once), and the triggers that put right an indexed
 * call that changes or is deleted. `drizzle/0011_search_id_tails.sql` holds exactly this.
 */
export function searchIndexSql(): string {
  return `DROP TRIGGER \`tool_calls_search_after_update\`;
--> statement-breakpoint
DROP TRIGGER \`tool_calls_search_after_delete\`;
--> statement-breakpoint
DROP TABLE \`tool_calls_search\`;
--> statement-breakpoint
UPDATE \`search_state\` SET \`indexed_upto\` = 0;
--> statement-breakpoint
${SEARCH_TABLES_0011.map((table) => tableSql(table, 'text')).join('--> statement-breakpoint\n')}`;
}

/**
 * The SQL of migration 0013: the index again without the session id (a search finds a session's
 * calls through `sessions` and the session index of `tool_calls` instead) and with the ids' last
 * ID_TAIL_CHARS (8) characters, 27 bytes a call less at 200,000 calls. Like 0011: both tables
 * and their triggers dropped and made again empty, automerge off, the mark back at 0 (the indexer
 * refills the index in the background when the store opens; calls above the mark are found by
 * the LIKE scan meanwhile). `drizzle/0013_search_without_sessions.sql` holds exactly this.
 */
export function searchWithoutSessionsSql(): string {
  return `${SEARCH_TABLES_0011.map(dropTableSql).join('')}UPDATE \`search_state\` SET \`indexed_upto\` = 0;
--> statement-breakpoint
${SEARCH_TABLES.map((table) => tableSql(table, 'stored')).join('--> statement-breakpoint\n')}`;
}

/** The code points of `text` (a surrogate pair is one character, as SQLite and the tokenizer count them). */
function characters(text: string): string[] {
  return Array.from(text);
}

/**
 * The part of a search text SQLite can search for: up to its first NUL (U+0000). SQLite reads a
 * bound text as a C string in a LIKE pattern (the rest is ignored) and in an FTS5 query (which
 * then fails as an unterminated string); the API refuses a NUL in a search (400), so only a
 * caller of the store itself (the traces page) gets here with one.
 * @example searchableText('a\u0000b') // 'a'
 */
export function searchableText(text: string): string {
  const nul = text.indexOf('\u0000');
  return nul === -1 ? text : text.slice(0, nul);
}

/** Whether a search for `text` can use the index: at least one trigram. */
export function usesSearchIndex(text: string): boolean {
  return characters(text).length >= SEARCH_INDEX_MIN_CHARS;
}

/** More trigrams than this and the query takes a cover of them instead of every one. */
const MAX_TRIGRAMS = 8;

/**
 * The FTS5 query of `tool_calls_search` that finds the rows holding every trigram of `text` (a
 * superset of the rows whose text columns contain it, ignoring case): each trigram a quoted
 * string, all of them required. A long text uses trigrams that cover it without overlap (and its
 * last one), which narrows as well for far fewer doclists to read. Every trigram is an FTS5
 * string, so quotes, `*`, `^`, `:`, parentheses and words like NEAR or OR are searched as text;
 * `text` holds no NUL (see `searchableText`).
 * @example searchIndexQuery('Paris') // '"Par" "ari" "ris"'
 */
export function searchIndexQuery(text: string): string {
  return trigramsQuery(characters(text), true);
}

/**
 * The FTS5 query of `tool_calls_id_search` that finds the calls whose id tail may hold `text`
 * or, for a text longer than a tail, end with it: every trigram of the text's last ID_TAIL_CHARS
 * characters (ids are random: each trigram narrows a lot).
 * @example idSearchQuery('07a8709c') // '"07a" "7a8" "a87" "870" "709" "09c"'
 */
export function idSearchQuery(text: string): string {
  return trigramsQuery(characters(text).slice(-ID_TAIL_CHARS), false);
}

/** Every trigram of `chars`, or (`cover`) a cover of them when there are many: see `searchIndexQuery`. */
function trigramsQuery(chars: readonly string[], cover: boolean): string {
  const starts: number[] = [];
  const last = chars.length - SEARCH_INDEX_MIN_CHARS;
  const step = cover && last + 1 > MAX_TRIGRAMS ? SEARCH_INDEX_MIN_CHARS : 1;
  for (let start = 0; start <= last; start += step) starts.push(start);
  if (starts.at(-1) !== last) starts.push(last);
  const trigrams = new Set(starts.map((start) => chars.slice(start, start + SEARCH_INDEX_MIN_CHARS).join('')));
  return [...trigrams].map((trigram) => `"${trigram.replaceAll('"', '""')}"`).join(' ');
}
