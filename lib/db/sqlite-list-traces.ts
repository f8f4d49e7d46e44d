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
import { STATUS_INDEXED, toolCalls } from './schema';
import {
  idSearchQuery,
  SEARCHED_COLUMNS,
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
  const newestSeq = sqlite.prepare('SELECT max(seq) FROM tool_calls').pluck();
  const oldestSeqFrom = sqlite
    .prepare('SELECT seq FROM tool_calls WHERE created_at >= ? ORDER BY created_at LIMIT 1')
    .pluck();
  const newestSeqBefore = sqlite
    .prepare('SELECT seq FROM tool_calls WHERE created_at < ? ORDER BY created_at DESC LIMIT 1')
    .pluck();
  const indexedUpTo = sqlite.prepare('SELECT indexed_upto FROM search_state').pluck();
  const searchCandidates = sqlite.prepare(SEARCH_CANDIDATES_SQL).pluck();
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
    // The index's rows holding every trigram, newest first, in growing chunks, each checked on its
    // call's columns; a page stops after MAX_SEARCH_CANDIDATES of them (partial, the cursor at the
    // last one checked), so text whose trigrams are all common but never side by side stays quick.
    const verify = statementFor(filter, null, false, 'indexed');
    let below = Math.min(upto + 1, filter.beforeSeq ?? Number.POSITIVE_INFINITY);
    let count = filter.limit + 1 - rows.length;
    let checked = 0;
    while (rows.length <= filter.limit) {
      const ids = searchCandidates.all({
        match: params.match,
        idMatch: params.idMatch,
        below,
        floor: floorSeq ?? 0,
        count,
      }) as number[];
      if (ids.length > 0) rows.push(...(verify.all({ ...params, candidates: JSON.stringify(ids) }) as SummaryRow[]));
      if (ids.length < count) break;
      below = ids.at(-1) as number;
      checked += ids.length;
      if (checked >= MAX_SEARCH_CANDIDATES && rows.length <= filter.limit) return { rows, floorSeq: below };
      count = Math.min(count * 4, 4096);
    }
    return { rows, floorSeq };
  }

  // One read transaction: the total and the page see the same snapshot.
  const list = sqlite.transaction((filter: ListFilter): TracePage => {
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
      return { items: page.map(decodeTraceSummary), nextCursor: encodeCursor(last.seq), partial: false, total };
    }
    return {
      items: page.map(decodeTraceSummary),
      nextCursor: floorSeq === undefined ? null : encodeCursor(floorSeq),
      partial: floorSeq !== undefined,
      total,
    };
  });

  return (query) => list(resolveListFilter(query));
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
    TEXT_SEARCH,
  ].filter((clause): clause is string => clause !== false);
  return `SELECT ${SELECT_LIST} FROM tool_calls WHERE ${where.join(' AND ')} ORDER BY seq DESC`;
}
