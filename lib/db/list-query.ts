import type { CallStatus } from '../executor/types';
import { decodeCursor } from './cursor';
import { ID_TAIL_CHARS, SEARCHED_TEXT_CHARS, usesSearchIndex } from './search-index';
import type { TraceQuery } from './trace-store';

/** Page size when a query names none. */
export const DEFAULT_LIST_LIMIT = 50;
/** Largest page a query may ask for. */
export const MAX_LIST_LIMIT = 500;

/**
 * Rows a list query reads at most, newest first, when no single index narrows it (a text
 * search, or two equality filters at once): so a search that matches nothing in a million
 * calls still answers in milliseconds. The page then says it is partial and its cursor goes on
 * with the next window.
 */
export const DEFAULT_SCAN_WINDOW = 50_000;

/**
 * The window of a text search, smaller: it reads the arguments, output, stdout and stderr of
 * each row, and one page must not hold the event loop for long (≈ 0.4 s for 50,000 rows of
 * 2 KB outputs on the 2-core development machine; a fifth of that here).
 */
export const TEXT_SCAN_WINDOW = 10_000;

/** Characters of the redacted arguments JSON a list row carries (`TraceSummary.argumentsPreview`). */
export const ARGUMENTS_PREVIEW_CHARS = 200;

/**
 * The first `ARGUMENTS_PREVIEW_CHARS` characters of `text`, counted as SQLite's `substr` counts
 * them (code points, not UTF-16 units), so both stores cut at the same place.
 */
export function argumentsPreview(text: string | null): string | null {
  if (text === null) return null;
  let end = 0;
  for (let count = 0; count < ARGUMENTS_PREVIEW_CHARS && end < text.length; count++) {
    end += (text.codePointAt(end) ?? 0) > 0xffff ? 2 : 1;
  }
  return text.slice(0, end);
}

/** Clamps a requested page size to 1..500; a missing or non-numeric one is the default 50. */
export function resolveLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_LIST_LIMIT;
  return Math.min(MAX_LIST_LIMIT, Math.max(1, Math.floor(limit)));
}

/**
 * A LIKE pattern (with `ESCAPE '\'`) that matches `text` anywhere, `%` and `_` taken literally.
 * @example likeContains('50%_off') // '%50\%\_off%'
 */
export function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, '\\$&')}%`;
}

/**
 * A LIKE pattern (with `ESCAPE '\'`) that matches values starting with `text`.
 * @example likePrefix('run_') // 'run\_%'
 */
export function likePrefix(text: string): string {
  return `${text.replace(/[\\%_]/g, '\\$&')}%`;
}

/**
 * A LIKE pattern (with `ESCAPE '\'`) that matches values ending with `text`.
 * @example likeSuffix('_42') // '%\_42'
 */
export function likeSuffix(text: string): string {
  return `%${text.replace(/[\\%_]/g, '\\$&')}`;
}

/**
 * Whether `haystack` contains `needle`, ignoring case the way SQLite's LIKE does: for ASCII
 * letters only. The in-memory store uses this so both stores find exactly the same rows.
 */
export function containsIgnoringAsciiCase(haystack: string, needle: string): boolean {
  return asciiLower(haystack).includes(asciiLower(needle));
}

/** Whether `text` starts with `prefix`, ignoring ASCII case as LIKE does (see `containsIgnoringAsciiCase`). */
export function startsWithIgnoringAsciiCase(text: string, prefix: string): boolean {
  return asciiLower(text).startsWith(asciiLower(prefix));
}

/**
 * Whether a search for `text` finds the id `id` (a trace id or a tool call id): `text` within the
 * id's last ID_TAIL_CHARS characters, or ending it (the whole id included), ignoring ASCII case.
 * What the search index holds of ids (see `search-index.ts`); both stores use this rule.
 */
export function idMatches(id: string, text: string): boolean {
  const lower = asciiLower(id);
  const needle = asciiLower(text);
  if (lower.endsWith(needle)) return true;
  const chars = Array.from(lower);
  const tail = chars.length > ID_TAIL_CHARS ? chars.slice(-ID_TAIL_CHARS).join('') : lower;
  return tail.includes(needle);
}

/**
 * The first `chars` characters (code points, as SQLite's `substr` counts them) of `text`: what a
 * search reads of a long text column (see SEARCHED_TEXT_CHARS).
 */
export function searchedHead(text: string, chars = SEARCHED_TEXT_CHARS): string {
  if (text.length <= chars) return text;
  let end = 0;
  for (let count = 0; count < chars && end < text.length; count++) {
    const code = text.charCodeAt(end);
    end += code >= 0xd800 && code <= 0xdbff && end + 1 < text.length ? 2 : 1;
  }
  return text.slice(0, end);
}

function asciiLower(text: string): string {
  return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/** A `TraceQuery` with its defaults applied and its cursor decoded: what both stores filter by. */
export interface ListFilter {
  tool?: string;
  status?: CallStatus;
  sessionId?: string;
  from?: number;
  to?: number;
  text?: string;
  faulted?: boolean;
  /** Only one principal's calls (see `TraceQuery.principalId`). */
  principalId?: string;
  limit: number;
  /** Only rows with a smaller seq (older than the previous page's last row). */
  beforeSeq?: number;
}

/**
 * Resolves a query once, the same way for every store: empty strings and non-finite numbers
 * mean "no filter", the limit is clamped, the cursor decoded (throws `InvalidCursorError`).
 */
export function resolveListFilter(query: TraceQuery = {}): ListFilter {
  const filter: ListFilter = { limit: resolveLimit(query.limit) };
  if (query.tool) filter.tool = query.tool;
  if (query.status) filter.status = query.status;
  if (query.sessionId) filter.sessionId = query.sessionId;
  if (Number.isFinite(query.from)) filter.from = query.from;
  if (Number.isFinite(query.to)) filter.to = query.to;
  if (query.text) filter.text = query.text;
  if (typeof query.faulted === 'boolean') filter.faulted = query.faulted;
  if (query.principalId) filter.principalId = query.principalId;
  if (query.cursor) filter.beforeSeq = decodeCursor(query.cursor);
  return filter;
}

/**
 * Whether the query checks rows one by one instead of walking one index: it then reads a bounded
 * window. The faulted flag has no index of its own (a rare value, checked row by row), nor has
 * the status `succeeded` (the common one: the status index leaves it out). A text
 * search alone walks the search index (see `search-index.ts`) over every call, unbounded, when
 * its text has a trigram; a shorter text, or a text with other filters, reads a window.
 */
export function needsBoundedScan(filter: ListFilter): boolean {
  const equalities = [filter.tool, filter.status, filter.sessionId].filter((value) => value !== undefined).length;
  if (filter.text !== undefined) return !searchesAlone(filter);
  // Succeeded calls have no entry in the (partial) status index: that filter is checked row by row.
  return (
    filter.faulted !== undefined || filter.principalId !== undefined || filter.status === 'succeeded' || equalities > 1
  );
}

/** Whether the query is a text search the search index answers alone: a trigram or more, no other filter. */
export function searchesAlone(filter: ListFilter): boolean {
  const { tool, status, sessionId, from, to, text, faulted, principalId } = filter;
  if (text === undefined || !usesSearchIndex(text)) return false;
  return [tool, status, sessionId, from, to, faulted, principalId].every((value) => value === undefined);
}

/**
 * The lowest seq a bounded query may read, or undefined when the window reaches the oldest call.
 * @param newest the newest seq in the store
 */
export function scanFloor(filter: ListFilter, newest: number, window: number): number | undefined {
  if (!needsBoundedScan(filter)) return undefined;
  if (filter.text !== undefined) window = Math.min(window, TEXT_SCAN_WINDOW);
  const top = filter.beforeSeq === undefined ? newest : Math.min(newest, filter.beforeSeq - 1);
  const floor = top - window + 1;
  return floor > 1 ? floor : undefined;
}

/**
 * Which total a store can give for `filter` without counting rows: every call (no filter), one
 * tool's calls (a tool filter alone), or none (any other filter; the page's total is then null).
 * The cursor and the limit do not change the total.
 */
export function cheapTotal(filter: ListFilter): 'all' | 'tool' | null {
  const { tool, status, sessionId, from, to, text, faulted, principalId } = filter;
  if (status !== undefined || sessionId !== undefined || from !== undefined || to !== undefined) return null;
  if (text !== undefined || faulted !== undefined || principalId !== undefined) return null;
  return tool === undefined ? 'all' : 'tool';
}
