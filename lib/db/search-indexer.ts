import type { CommitTimers } from './commit-timers';
import type { SqliteDatabase } from './open-database';
import { SEARCH_INDEX_FILL_SQL, SEARCHED_COLUMNS } from './search-index';

/** Rows indexed in one step at most: a few milliseconds of the event loop, one FTS5 segment. */
export const INDEX_STEP_ROWS = 512;
/**
 * Characters of searched text indexed in one step at most (a step always takes one row): FTS5
 * tokenizes 1 MiB in 0.1–0.5 s on the 2-core machine, on the event loop. Typical calls (a few
 * hundred bytes each) fill most of INDEX_STEP_ROWS first; calls with large outputs (up to
 * `limits.maxTraceBytes` each) no longer make a step of seconds.
 */
export const INDEX_STEP_CHARS = 256 * 1024;
/** How long writes must pause before indexing starts: it does not compete with a burst of calls. */
export const INDEX_IDLE_MS = 50;
/** Rows left unindexed that make indexing start even while writes go on (searches scan them by LIKE). */
export const MAX_UNINDEXED_ROWS = 50_000;
/**
 * How long a call still running (or awaiting approval) holds the indexer back, with every call
 * after it (searches read them by LIKE above the mark meanwhile). A call indexed while it runs is
 * indexed again when it finishes, by the trigger, inside the write of its result: with a large
 * output (up to `limits.maxTraceBytes`), a pause of the event loop in the middle of a commit,
 * seconds when several such calls finish together. Held, it is indexed once, after it finished,
 * in a step like any other. Not held while MAX_UNINDEXED_ROWS or more wait.
 */
export const HOLD_RUNNING_MS = 10_000;

/**
 * Keeps the search index (see `search-index.ts`) up with `tool_calls`, off the write path:
 * a call is written by the group commit alone, and indexed later in steps of at most
 * INDEX_STEP_ROWS rows and INDEX_STEP_CHARS characters of searched text (in seq order, one
 * transaction each, which also moves `search_state.indexed_upto`, the event loop free between). A
 * search reads the index up to `indexed_upto` and scans the few rows above it (see
 * `sqlite-list-traces.ts`); a row changed or deleted after it was indexed is put right by the
 * triggers of migration 0010. A call still running holds the mark back for a while (see
 * HOLD_RUNNING_MS), so that its result is indexed once, in a step, not again inside its write.
 *
 * Indexing a call in the transaction that writes it (a trigger) halved the calls/s of the
 * executor: FTS5 writes a segment per transaction, and the group commit commits often.
 */
export interface SearchIndexer {
  /** The newest seq the index holds: every call at or below it is indexed. */
  indexedUpTo(): number;
  /** Indexes up to `rows` rows not yet indexed, oldest first; returns how many it indexed. */
  indexSome(rows: number): number;
  /** Told after the store committed rows up to `newestSeq`: schedules indexing (see INDEX_IDLE_MS). */
  afterCommit(newestSeq: number): void;
  /** Stops the scheduled indexing. */
  stop(): void;
}

/**
 * Creates the indexer of one connection; several processes may each run one (every step is a
 * write transaction that reads the mark it moves).
 * @example const indexer = createSearchIndexer(sqlite, systemCommitTimers)
 */
export function createSearchIndexer(
  sqlite: SqliteDatabase,
  timers: CommitTimers,
  now: () => number = Date.now,
): SearchIndexer {
  const readMark = sqlite.prepare('SELECT indexed_upto FROM search_state').pluck();
  const stepEnd = sqlite.prepare(STEP_END_SQL).pluck();
  const firstHeld = sqlite.prepare(FIRST_HELD_SQL);
  const newest = sqlite.prepare('SELECT max(seq) FROM tool_calls').pluck();
  const fill = sqlite.prepare(SEARCH_INDEX_FILL_SQL);
  const moveMark = sqlite.prepare('UPDATE search_state SET indexed_upto = ?');
  let timer: unknown = null;
  /** What the last step or read saw; a hint for scheduling, never used to decide what to index. */
  let knownMark = (readMark.get() as number | undefined) ?? 0;
  let knownNewest = (newest.get() as number | null) ?? 0;
  /** Set by a step a running call held back: in how many ms its hold ends. */
  let heldForMs: number | null = null;

  const step = sqlite.transaction((rows: number, hold: boolean): number => {
    const from = (readMark.get() as number) ?? 0;
    let to = (stepEnd.get({ from, rows, chars: INDEX_STEP_CHARS }) as number | null) ?? from;
    heldForMs = null;
    if (hold && to > from && knownNewest - from < MAX_UNINDEXED_ROWS) {
      const since = now() - HOLD_RUNNING_MS;
      const held = firstHeld.get({ from, to, since }) as { seq: number; created_at: number } | undefined;
      if (held) {
        to = held.seq - 1;
        heldForMs = Math.max(1, held.created_at - since);
      }
    }
    knownMark = to;
    if (to <= from) return 0;
    const indexed = fill.run({ from, to }).changes;
    moveMark.run(to);
    return indexed;
  });

  function schedule(ms: number): void {
    if (timer !== null) timers.clearTimeout(timer);
    timer = timers.setTimeout(run, ms);
  }

  function run(): void {
    timer = null;
    try {
      step(INDEX_STEP_ROWS, true);
    } catch (error) {
      // Busy (another process writes) or closed: the next commit schedules it again.
      if ((error as { code?: unknown }).code !== 'SQLITE_BUSY')
        console.error('[toolscope] search indexing failed:', error);
      return;
    }
    // Yield to the event loop between steps; go on until caught up, or until a held call may go.
    if (heldForMs !== null) schedule(heldForMs);
    else if (knownMark < knownNewest) schedule(0);
  }

  // Rows stored before this process (or before migration 0010) are indexed from the start.
  if (knownMark < knownNewest) schedule(INDEX_IDLE_MS);

  return {
    indexedUpTo: () => (readMark.get() as number | undefined) ?? 0,
    indexSome(rows) {
      // Holds nothing back: everything stored is indexed.
      let indexed = 0;
      while (indexed < rows) {
        const done = step(Math.min(INDEX_STEP_ROWS, rows - indexed), false);
        if (done === 0) break;
        indexed += done;
      }
      return indexed;
    },
    afterCommit(newestSeq) {
      if (newestSeq > knownNewest) knownNewest = newestSeq;
      if (knownNewest - knownMark >= MAX_UNINDEXED_ROWS) schedule(0);
      else schedule(INDEX_IDLE_MS);
    },
    stop() {
      if (timer !== null) timers.clearTimeout(timer);
      timer = null;
    },
  };
}

/** The searched text of a row, in characters (bytes for a BLOB). */
const rowChars = SEARCHED_COLUMNS.map((name) => `coalesce(length(\`${name}\`), 0)`).join(' + ');

/**
 * The last seq of the next step: of the (at most `@rows`) rows above `@from`, the first one and
 * those after it while their searched text adds up to `@chars` at most; null when none is left.
 */
export const STEP_END_SQL = `SELECT max(seq) FROM (
  SELECT seq, row_number() OVER running AS n, sum(chars) OVER running AS total
  FROM (SELECT seq, ${rowChars} AS chars FROM tool_calls WHERE seq > @from ORDER BY seq LIMIT @rows)
  WINDOW running AS (ORDER BY seq ROWS UNBOUNDED PRECEDING)
) WHERE n = 1 OR total <= @chars`;

/** The first call of a step (`@from` < seq <= `@to`) still running that began after `@since`. */
export const FIRST_HELD_SQL = `SELECT seq, created_at FROM tool_calls
  WHERE seq > @from AND seq <= @to AND status IN ('running', 'awaiting_approval') AND created_at > @since
  ORDER BY seq LIMIT 1`;
