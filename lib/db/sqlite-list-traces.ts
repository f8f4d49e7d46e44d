import { getTableColumns } from 'drizzle-orm';
import { encodeCursor } from './cursor';
import {
  ARGUMENTS_PREVIEW_CHARS,
  cheapTotal,
  DEFAULT_SCAN_WINDOW,
  type ListFilter,
  likeContains,
  likePrefix,
  likeSuffix,
  resolveListFilter,
  scanFloor,
  TEXT_SCAN_WINDOW,
} from './list-query';
import type { SqliteDatabase } from './open-database';
import { createSqlitePrincipalDirectory, type PrincipalDirectory } from './principal-directory';
import { STATUS_INDEXED, toolCalls } from './schema';
import {
  idSearchQuery,
  SEARCHED_COLUMNS,
  searchableText,
  searchedText,
  searchIndexQuery,
  TAIL_INDEXED_COLUMNS,
  usesSearchIndex,
} from './search-index';
import { chooseTimeRangePlan, type TimeRangePlan } from './time-range-plan';
import { idTextSql } from './trace-id';
import { decodeTraceSummary, type TraceSummaryRow } from './trace-row';
import type { TracePage, TraceQuery } from './trace-store';

const SUMMARY_KEYS = [
  'seq',
  'id',
  'toolCallId',
  'sessionId',
  'actor',
  'tool',
  'status',
  'createdAt',
  'finishedAt',
  'latencyMs',
  'attemptCount',
  'errorCode',
  'retried',
  'fellBack',
  'truncated',
  'faulted',
  'replayed',
  'sessionSeq',
  'servedFrom',
  'imported',
  'principalRef',
  // JSON, NULL for most calls: the wait for approval is shown beside the latency.
  'approval',
] as const;
type SummaryRow = TraceSummaryRow & { seq: number };

const columns = getTableColumns(toolCalls);
// Column names come from the drizzle schema, aliased to its property names, so a rename in
// schema.ts cannot silently break this hand-written SQL.
const SELECT_LIST = [
  ...SUMMARY_KEYS.map((key) => `${columns[key].name} AS "${key}"`),
  // Cut in SQL: the page never carries whole arguments (up to the trace cap each) into JS.
  `substr(${columns.arguments.name}, 1, ${ARGUMENTS_PREVIEW_CHARS}) AS "argumentsPreview"`,
].join(', ');

// What a text search looks at (the search index holds the same columns, the ids by their tails:
// see `idMatches`); short columns first, so a hit there skips the long ones.
const TEXT_SEARCH = `(${SEARCHED_COLUMNS.map((column) => {
  if (column === 'session_id') return "session_id LIKE @prefix ESCAPE '\\'";
  if (TAIL_INDEXED_COLUMNS.has(column)) {
    const whole = column === 'id' ? idTextSql(column) : column;
    return `${searchedText(column)} LIKE @pattern ESCAPE '\\' OR ${whole} LIKE @suffix ESCAPE '\\'`;
  }
  return `${searchedText(column)} LIKE @pattern ESCAPE '\\'`;
}).join(' OR ')})`;

export interface ListTracesOptions {
  /** Forces one walk for time-range queries instead of choosing per query; for tests and diagnosis. */
  timeRangePlan?: TimeRangePlan | 'auto';
  /** See DEFAULT_SCAN_WINDOW. */
  scanWindow?: number;
  /** The principals calls point at (`principal_ref`). */
  principals?: PrincipalDirectory;
}

/**
 * Builds the SQLite `list`: filters newest first, keyset-paginated on seq (`seq < cursor`),
 * one row more than the page to learn whether another page follows. Queries no single index
 * narrows read at most `scanWindow` rows (see DEFAULT_SCAN_WINDOW).
 *
 * Without a time range SQLite's own plan is right: an equality filter walks its (column, seq)
 * index backwards, otherwise the rowid does, and LIMIT stops it. With a time range the walk is
 * chosen here (see `time-range-plan.ts`) and pinned with `INDEXED BY` or a unary `+` that keeps
 * SQLite off the created_at index. One prepared statement per distinct SQL text (filter shape and plan).
 */
export function createSqliteListTraces(
  sqlite: SqliteDatabase,
  options: ListTracesOptions = {},
): (query?: TraceQuery) => TracePage {
  const forcedPlan = options.timeRangePlan ?? 'auto';
  const scanWindow = options.scanWindow ?? DEFAULT_SCAN_WINDOW;
  const principals = options.principals ?? createSqlitePrincipalDirectory(sqlite);
  const decode = (row: SummaryRow) => decodeTraceSummary(row, principals.byRef);
  const newestSeq = sqlite.prepare('SELECT max(seq) FROM tool_calls').pluck();
  const oldestSeqFrom = sqlite
    .prepare('SELECT seq FROM tool_calls WHERE created_at >= ? ORDER BY created_at LIMIT 1')
    .pluck();
  const newestSeqBefore = sqlite
    .prepare('SELECT seq FROM tool_calls WHERE created_at < ? ORDER BY created_at DESC LIMIT 1')
    .pluck();
  const indexedUpTo = sqlite.prepare('SELECT indexed_upto FROM search_state').pluck();
  const searchCandidates = sqlite.prepare(SEARCH_CANDIDATES_SQL).pluck();
  const sessionsStartingWith = createSessionPrefixLookup(sqlite);
  const sessionCandidates = sqlite.prepare(SESSION_CANDIDATES_SQL.oneSession).pluck();
  const smallSessionsCandidates = sqlite.prepare(SESSION_CANDIDATES_SQL.smallSessions).pluck();
  const sessionWalk = sqlite.prepare(SESSION_CANDIDATES_SQL.walk).pluck();
  const statements = new Map<string, ReturnType<SqliteDatabase['prepare']>>();
  const totalOfAll = sqlite.prepare(LIST_TOTAL_SQL.all).pluck();
  const totalOfTool = sqlite.prepare(LIST_TOTAL_SQL.tool).pluck();

  function totalFor(filter: ListFilter): number | null {
    const kind = cheapTotal(filter);
    if (kind === 'all') return totalOfAll.get() as number;
    if (kind === 'tool') return (totalOfTool.get(filter.tool) as number | undefined) ?? 0;
    return null;
  }

  function planFor(filter: ListFilter): TimeRangePlan | null {
    if (filter.from === undefined && filter.to === undefined) return null;
    if (forcedPlan !== 'auto') return forcedPlan;
    const newest = (newestSeq.get() as number | null) ?? 0;
    const top = filter.beforeSeq === undefined ? newest : Math.min(newest, filter.beforeSeq - 1);
    const oldest = filter.from === undefined ? 1 : (oldestSeqFrom.get(filter.from) as number | undefined);
    const last = filter.to === undefined ? newest : (newestSeqBefore.get(filter.to) as number | undefined);
    // Nothing on one side of the range: the index finds that out at once.
    if (oldest === undefined || last === undefined) return 'created-at-index';
    return chooseTimeRangePlan({
      rangeRows: Math.max(0, Math.min(last, top) - oldest + 1),
      newerRows: Math.max(0, top - last),
    });
  }

  function statementFor(filter: ListFilter, plan: TimeRangePlan | null, bounded: boolean, part?: SearchPart) {
    const text = listTracesSql(filter, plan, bounded, part);
    let statement = statements.get(text);
    if (!statement) {
      statement = sqlite.prepare(text);
      statements.set(text, statement);
    }
    return statement;
  }

  /**
   * A search through the index: the rows above its mark (not indexed yet, a few) by LIKE, newest
   * first, then the index below the mark. Many rows above the mark (the index being filled after
   * migration 0010) are read a window at a time, the page then partial.
   */
  function searchRows(filter: ListFilter, params: Record<string, unknown>, floor: number | undefined, newest: number) {
    const upto = (indexedUpTo.get() as number | undefined) ?? 0;
    const top = filter.beforeSeq === undefined ? newest : Math.min(newest, filter.beforeSeq - 1);
    let floorSeq = floor;
    if (floorSeq === undefined && top - upto > TEXT_SCAN_WINDOW) floorSeq = top - TEXT_SCAN_WINDOW + 1;
    const rows = statementFor(filter, null, true, 'unindexed').all({
      ...params,
      floorSeq: Math.max(upto + 1, floorSeq ?? 0),
    }) as SummaryRow[];
    if (rows.length > filter.limit || (floorSeq !== undefined && floorSeq > upto)) return { rows, floorSeq };
    // The index's rows holding every trigram, and the calls of the sessions whose id starts with
    // the text, newest first, in growing chunks, each checked on its call's columns; a page stops
    // after MAX_SEARCH_CANDIDATES of them (partial, the cursor at the last one checked), so text
    // whose trigrams are all common but never side by side stays quick.
    const verify = statementFor(filter, null, false, 'indexed');
    const sessions = sessionsStartingWith(filter.text ?? '');
    const lowest = floorSeq ?? 0;
    let below = Math.min(upto + 1, filter.beforeSeq ?? Number.POSITIVE_INFINITY);
    let count = filter.limit + 1 - rows.length;
    let checked = 0;
    while (rows.length <= filter.limit) {
      const chunk = candidatesBelow(params, sessions, below, lowest, count);
      if (chunk.ids.length > 0)
        rows.push(...(verify.all({ ...params, candidates: JSON.stringify(chunk.ids) }) as SummaryRow[]));
      if (chunk.reached <= lowest) break;
      checked += chunk.read;
      below = chunk.reached;
      if (checked >= MAX_SEARCH_CANDIDATES && rows.length <= filter.limit) return { rows, floorSeq: below };
      count = Math.min(count * 4, 4096);
    }
    return { rows, floorSeq };
  }

  /**
   * The newest candidates of a search below `below` (and at or above `floor`): the rows of the
   * search index holding the text's trigrams, and the calls of the sessions whose id starts with
   * it (through the session index: the small sessions together, each large one on its own; or,
   * for many sessions, a walk of the calls newest first, SESSION_WALK_ROWS a chunk). Each source gives its newest `count`; every
   * candidate from `reached` up is in `ids`, none missing (`reached` is `floor` once all sources
   * ran out). `read`: the rows read, towards MAX_SEARCH_CANDIDATES.
   */
  function candidatesBelow(
    params: Record<string, unknown>,
    sessions: SessionMatch,
    below: number,
    floor: number,
    count: number,
  ): { ids: number[]; reached: number; read: number } {
    const sources: number[][] = [];
    let reached = floor;
    let read = 0;
    // A source that gave fewer than `count` ran out at `end`; one that gave `count`, at its last.
    const add = (ids: number[], end: number) => {
      sources.push(ids);
      read += ids.length;
      const stop = ids.length < count ? end : (ids.at(-1) as number);
      reached = Math.max(reached, stop);
      return stop;
    };
    add(searchCandidates.all({ match: params.match, idMatch: params.idMatch, below, floor, count }) as number[], floor);
    if (sessions === 'many') {
      const end = Math.max(floor, below - SESSION_WALK_ROWS);
      const walked = sessionWalk.all({ prefix: params.prefix, below, floor: end, count }) as number[];
      // Every call the walk read, down to where it stopped, not only the ones it kept.
      read += below - add(walked, end) - walked.length;
    } else {
      if (sessions.small.length > 0) {
        const small = JSON.stringify(sessions.small);
        add(smallSessionsCandidates.all({ sessions: small, below, floor, count }) as number[], floor);
      }
      for (const session of sessions.large)
        add(sessionCandidates.all({ session, below, floor, count }) as number[], floor);
    }
    let ids = sources.length === 1 ? (sources[0] as number[]) : mergeNewestFirst(sources);
    ids = ids.filter((seq) => seq >= reached);
    if (ids.length > count) {
      ids = ids.slice(0, count);
      reached = ids.at(-1) as number;
    }
    return { ids, reached, read };
  }

  // One read transaction: the total and the page see the same snapshot.
  const list = sqlite.transaction((filter: ListFilter): TracePage => {
    const principalRef = filter.principalId === undefined ? undefined : principals.refOfId(filter.principalId);
    // A principal that never made a call (or is unknown) has none to list.
    if (principalRef === null) return { items: [], nextCursor: null, partial: false, total: null };
    const newest = (newestSeq.get() as number | null) ?? 0;
    let floorSeq = scanFloor(filter, newest, scanWindow);
    const params = {
      floorSeq,
      tool: filter.tool,
      status: filter.status,
      sessionId: filter.sessionId,
      from: filter.from,
      to: filter.to,
      beforeSeq: filter.beforeSeq,
      pattern: filter.text === undefined ? undefined : likeContains(filter.text),
      prefix: filter.text === undefined ? undefined : likePrefix(filter.text),
      suffix: filter.text === undefined ? undefined : likeSuffix(filter.text),
      match: filter.text !== undefined && usesSearchIndex(filter.text) ? searchIndexQuery(filter.text) : undefined,
      idMatch: filter.text !== undefined && usesSearchIndex(filter.text) ? idSearchQuery(filter.text) : undefined,
      principalRef,
      limit: filter.limit + 1,
    };
    let rows: SummaryRow[];
    if (params.match !== undefined) {
      ({ rows, floorSeq } = searchRows(filter, params, floorSeq, newest));
    } else {
      rows = statementFor(filter, planFor(filter), floorSeq !== undefined).all(params) as SummaryRow[];
    }
    const page = rows.slice(0, filter.limit);
    const last = page.at(-1);
    const total = totalFor(filter);
    if (rows.length > filter.limit && last) {
      return { items: page.map(decode), nextCursor: encodeCursor(last.seq), partial: false, total };
    }
    return {
      items: page.map(decode),
      nextCursor: floorSeq === undefined ? null : encodeCursor(floorSeq),
      partial: floorSeq !== undefined,
      total,
    };
  });

  return (query) => list(searchableFilter(resolveListFilter(query)));
}

/** `filter` with its text as SQLite can search it (see `searchableText`): none when that is empty. */
function searchableFilter(filter: ListFilter): ListFilter {
  if (filter.text === undefined) return filter;
  const text = searchableText(filter.text);
  if (text === filter.text) return filter;
  const { text: _text, ...rest } = filter;
  return text === '' ? rest : { ...rest, text };
}

/** The cheap totals of `TracePage.total`, from the trigger-kept `tool_counts`; exported for the plan tests. */
export const LIST_TOTAL_SQL = {
  all: 'SELECT coalesce(sum(calls), 0) FROM tool_counts',
  tool: 'SELECT calls FROM tool_counts WHERE tool = ?',
} as const;

/** Which rows of a search a statement reads: the ones the index holds, or the ones above its mark. */
export type SearchPart = 'indexed' | 'unindexed';

/**
 * The SELECT for one list query: the filters present (as named parameters), pinned to `plan`
 * when there is a time range. Exported for the query-plan tests.
 */
export function listTracesSql(
  filter: ListFilter,
  plan: TimeRangePlan | null,
  bounded = false,
  part: SearchPart = 'indexed',
): string {
  if (part === 'indexed' && filter.text !== undefined && usesSearchIndex(filter.text)) return searchSql(filter);
  const createdAt = plan === 'seq-scan' ? '+created_at' : 'created_at';
  const where = [
    filter.tool !== undefined && 'tool = @tool',
    filter.status !== undefined &&
      (filter.status === 'succeeded' ? '+status = @status' : `status = @status AND ${STATUS_INDEXED}`),
    filter.sessionId !== undefined && 'session_id = @sessionId',
    filter.from !== undefined && `${createdAt} >= @from`,
    filter.to !== undefined && `${createdAt} < @to`,
    filter.beforeSeq !== undefined && 'seq < @beforeSeq',
    bounded && 'seq >= @floorSeq',
    filter.faulted !== undefined && `${columns.faulted.name} = ${filter.faulted ? 1 : 0}`,
    filter.principalId !== undefined && 'principal_ref = @principalRef',
    filter.text !== undefined && TEXT_SEARCH,
  ].filter((clause): clause is string => clause !== false);
  const table = plan === 'created-at-index' ? 'tool_calls INDEXED BY tool_calls_created_at_idx' : 'tool_calls';
  const conditions = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
  return `SELECT ${SELECT_LIST} FROM ${table}${conditions} ORDER BY seq DESC LIMIT @limit`;
}

/**
 * The rows of the search index holding every trigram of a text in their text columns, or those
 * of its end in their ids' tails, newest first, below `@below` (each FTS5 table walks its rowids
 * backwards, the two walks merged, and the LIMIT stops them); exported for the plan tests.
 */
export const SEARCH_CANDIDATES_SQL = `SELECT rowid FROM tool_calls_search WHERE tool_calls_search MATCH @match
    AND rowid < @below AND rowid >= @floor
  UNION SELECT rowid FROM tool_calls_id_search WHERE tool_calls_id_search MATCH @idMatch
    AND rowid < @below AND rowid >= @floor
  ORDER BY 1 DESC LIMIT @count`;

/**
 * The candidates of a search among the calls of the sessions whose id starts with its text (the
 * index does not hold session ids: see `search-index.ts`), newest first, below `@below`:
 * `smallSessions`, the calls of sessions of SMALL_SESSION_CALLS or fewer (`@sessions`, a JSON
 * array) through the session index, every one below `@below` read and sorted (a few thousand at
 * most); `oneSession`, a larger session's newest through the session index (its entries end in
 * the seq), no sort; `walk`, the calls themselves newest first, each session id tested (many
 * sessions match). Exported for the plan tests.
 */
export const SESSION_CANDIDATES_SQL = {
  smallSessions: `SELECT seq FROM tool_calls WHERE session_id IN (SELECT value FROM json_each(@sessions))
    AND seq < @below AND seq >= @floor ORDER BY seq DESC LIMIT @count`,
  oneSession: `SELECT seq FROM tool_calls WHERE session_id = @session AND seq < @below AND seq >= @floor
    ORDER BY seq DESC LIMIT @count`,
  walk: `SELECT seq FROM tool_calls WHERE seq < @below AND seq >= @floor AND +session_id LIKE @prefix ESCAPE '\\'
    ORDER BY seq DESC LIMIT @count`,
} as const;

/**
 * Sessions whose calls a search reads through the session index, at most: past this many
 * sessions starting with the text, it walks the calls instead (SESSION_CANDIDATES_SQL.walk).
 */
export const SESSION_LOOKUP_MAX = 1024;
/**
 * Calls of a session (`sessions.calls`) that the search reads together with the other small
 * ones; a larger session is read on its own, newest first, as far as the page needs. 403
 * sessions of 40 calls: 0.24 ms together, 2.6 ms one by one.
 */
export const SMALL_SESSION_CALLS = 64;
/** Calls the walk reads per chunk at most (see `candidatesBelow`); they count towards MAX_SEARCH_CANDIDATES. */
export const SESSION_WALK_ROWS = 4096;
/** The distinct spellings (ASCII case) of a text's start that the session lookup follows at most. */
const MAX_SESSION_PREFIXES = 64;

/**
 * The session ids starting with a search's text (ASCII case ignored), the small ones (see
 * SMALL_SESSION_CALLS) apart from the large; or `many` (over SESSION_LOOKUP_MAX).
 */
export type SessionMatch = { small: string[]; large: string[] } | 'many';

/**
 * Finds the session ids that start with a text, ignoring ASCII case as LIKE does, in the
 * primary key of `sessions` (one row per session id, kept by triggers): it follows the spellings
 * of the text's start that some session id has, a character at a time, each a range of the key
 * (`id >= prefix AND id < the next prefix`) asked whether it holds a row: two lookups per
 * letter, one per other character, however many sessions there are. Then it reads the ids (and
 * their calls) in the ranges left, up to SESSION_LOOKUP_MAX. Exported for the tests.
 */
export function createSessionPrefixLookup(sqlite: SqliteDatabase): (text: string) => SessionMatch {
  const exists = sqlite.prepare(SESSION_PREFIX_SQL.exists).pluck();
  const inRange = sqlite.prepare(SESSION_PREFIX_SQL.ids);
  const holds = (prefix: string) => exists.get({ low: prefix, high: prefixEnd(prefix) }) !== undefined;
  return (text) => {
    let prefixes = [''];
    for (const char of Array.from(wellFormed(text))) {
      const spellings = /^[a-z]$/i.test(char) ? [char.toUpperCase(), char.toLowerCase()] : [char];
      const next: string[] = [];
      for (const prefix of prefixes)
        for (const spelling of spellings) if (holds(prefix + spelling)) next.push(prefix + spelling);
      if (next.length === 0) return { small: [], large: [] };
      if (next.length > MAX_SESSION_PREFIXES) return 'many';
      prefixes = next;
    }
    const found: { id: string; calls: number }[] = [];
    for (const prefix of prefixes) {
      const count = SESSION_LOOKUP_MAX + 1 - found.length;
      found.push(...(inRange.all({ low: prefix, high: prefixEnd(prefix), count }) as typeof found));
      if (found.length > SESSION_LOOKUP_MAX) return 'many';
    }
    const small = found.filter((session) => session.calls <= SMALL_SESSION_CALLS).map((session) => session.id);
    const large = found.filter((session) => session.calls > SMALL_SESSION_CALLS).map((session) => session.id);
    return { small, large };
  };
}

/** The session lookup's reads of the primary key of `sessions`; exported for the plan tests. */
export const SESSION_PREFIX_SQL = {
  exists: 'SELECT 1 FROM sessions WHERE id >= @low AND id < @high LIMIT 1',
  ids: 'SELECT id, calls FROM sessions WHERE id >= @low AND id < @high ORDER BY id LIMIT @count',
} as const;

/**
 * The least value above every text starting with `prefix` (SQLite compares text by its UTF-8
 * bytes, which order as the code points do): the prefix with its last character the next one;
 * past U+10FFFF, an empty BLOB, which sorts after every text.
 */
function prefixEnd(prefix: string): string | Buffer {
  const chars = Array.from(prefix);
  while (chars.length > 0) {
    const last = (chars.pop() as string).codePointAt(0) as number;
    // The surrogates are no characters: U+D7FF is followed by U+E000.
    if (last < 0x10ffff) return chars.join('') + String.fromCodePoint(last === 0xd7ff ? 0xe000 : last + 1);
  }
  return Buffer.alloc(0);
}

/** `text` with each lone surrogate replaced by U+FFFD, as SQLite receives it (String.prototype.toWellFormed). */
function wellFormed(text: string): string {
  return (text as unknown as { toWellFormed(): string }).toWellFormed();
}

/** Sorted lists of seqs (newest first) as one, newest first, each seq once. */
function mergeNewestFirst(lists: readonly number[][]): number[] {
  const all = new Set<number>();
  for (const list of lists) for (const seq of list) all.add(seq);
  return [...all].sort((a, b) => b - a);
}

/** Candidate rows a search checks at most per page; see `searchRows`. */
export const MAX_SEARCH_CANDIDATES = 20_000;

/**
 * The check of a chunk of search candidates (`@candidates`, a JSON array of seqs): each call
 * read by seq, kept when the LIKE test on its own columns (and any other filter) passes.
 */
function searchSql(filter: ListFilter): string {
  const where = [
    'seq IN (SELECT value FROM json_each(@candidates))',
    // Unary +: checked on each candidate, never an index walk of their own.
    filter.tool !== undefined && '+tool = @tool',
    filter.status !== undefined && '+status = @status',
    filter.sessionId !== undefined && '+session_id = @sessionId',
    filter.from !== undefined && '+created_at >= @from',
    filter.to !== undefined && '+created_at < @to',
    filter.faulted !== undefined && `${columns.faulted.name} = ${filter.faulted ? 1 : 0}`,
    filter.principalId !== undefined && 'principal_ref = @principalRef',
    TEXT_SEARCH,
  ].filter((clause): clause is string => clause !== false);
  return `SELECT ${SELECT_LIST} FROM tool_calls WHERE ${where.join(' AND ')} ORDER BY seq DESC`;
}
