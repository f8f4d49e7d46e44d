import type { CommitTimers } from './commit-timers';
import { fts5LevelSegments, structureSql } from './fts5-structure';
import type { SqliteDatabase } from './open-database';
import { SEARCH_INDEX_FILL_SQL, SEARCH_TABLES, searchedText } from './search-index';

/** Rows indexed in one step: well under a millisecond of the event loop, one small FTS5 segment. */
export const INDEX_STEP_ROWS = 64;
/**
 * Characters of searched text indexed in one step at most (a step always takes one row): FTS5
 * tokenizes 1 MiB in 0.1–0.5 s on the 2-core machine, on the event loop. Typical calls (a few
 * hundred bytes each) fill INDEX_STEP_ROWS first; calls with large outputs (up to
 * `limits.maxTraceBytes` each) no longer make a step of seconds (16 calls of 560 KB made one of 4.6 s).
 */
export const INDEX_STEP_CHARS = 256 * 1024;
/**
 * Leaf pages of merge work after each step (FTS5's `merge` command). FTS5's own automerge (off
 * since migration 0011) merged whole levels inside a step: a 512-row step took 2.4 ms at p50 and
 * 29 ms at p99 of its CPU time. Merging this little after every step keeps the steps short.
 */
export const MERGE_PAGES_PER_STEP = 8;
/**
 * FTS5's `crisismerge` (its default; the tables keep it): a level that reaches this many
 * segments is merged whole, at once, inside the write that made it so, and the level above it
 * too when that fills in turn. Under sustained writes MERGE_PAGES_PER_STEP alone fell behind and
 * let that happen, the more often the larger the index: indexing 300,000 calls in steps of 64,
 * one step took 256 ms; 1,000,000 calls, one took 3.4 s — the event loop stopped all along.
 */
export const FTS5_CRISIS_MERGE = 16;
/**
 * Segments on one level that make a step merge MERGE_PAGES_BEHIND more pages: merging then
 * catches up before any level reaches FTS5_CRISIS_MERGE (`fts5-structure.ts` reads the counts).
 * The same 1,000,000 calls: no level above 13 segments, the slowest step 23 ms (p99 9.5 ms
 * against 12.3 before), and 42.1 µs a call in all against 43.6 (the merges at once were not cheaper).
 */
export const LEVEL_SEGMENTS_BEHIND = 12;
export const MERGE_PAGES_BEHIND = 32;
/** How long writes must pause before indexing starts: it does not compete with a burst of calls. */
export const INDEX_IDLE_MS = 50;
/** Rows left unindexed that make indexing start even while writes go on (searches scan them by LIKE). */
export const MAX_UNINDEXED_ROWS = 50_000;
/**
 * While writes go on, the least pause between catch-up steps (64 rows every 4 ms is 16,000
 * calls/s, twice what the HTTP path sustains); a slower step waits longer, so that catching up
 * takes at most CATCH_UP_SHARE of the event loop. Once writes pause, steps follow each other at once.
 */
export const CATCH_UP_PAUSE_MS = 4;
/**
 * The share of the event loop catching up may take while writes go on. Indexing costs 15–20 µs
 * a call in the server under load (tokenizing, and merging the index's segments): at 7,000
 * calls/s, keeping up at once would take 15% of the loop, whose p99 that showed.
 */
export const CATCH_UP_SHARE = 0.1;
/**
 * How long a call still running (or awaiting approval) holds the indexer back, with every call
 * after it (searches read them by LIKE above the mark meanwhile). A call indexed while it runs is
 * indexed again when it finishes, by the trigger, inside the write of its result: with a large
 * output (up to `limits.maxTraceBytes`), a pause of the event loop in the middle of a commit,
 * seconds when several such calls finish together (12 calls of 1 MiB: 1.9 s). Held, it is
 * indexed once, after it finished, in a step like any other. Not held while the indexer is
 * MAX_UNINDEXED_ROWS or more behind.
 */
export const HOLD_RUNNING_MS = 10_000;

/**
 * Keeps the search index (see `search-index.ts`) up with `tool_calls`, off the write path:
 * a call is written by the group commit alone, and indexed later in steps of at most
 * INDEX_STEP_ROWS rows and INDEX_STEP_CHARS characters of searched text (in seq order, one
 * transaction each, which also moves `search_state.indexed_upto`, the event loop free between). A
 * search reads the index up to `indexed_upto` and scans the few rows above it (see
 * `sqlite-list-traces.ts`); a row changed or deleted after it was indexed is put right by the
 * triggers of migration 0013. A call still running holds the mark back for a while (see
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
  /**
   * Told after the store committed rows up to `newestSeq`: schedules indexing once writes pause
   * for INDEX_IDLE_MS, or, MAX_UNINDEXED_ROWS behind, a step every CATCH_UP_PAUSE_MS or more (see
   * CATCH_UP_SHARE) until caught up.
   */
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
  options: { maxUnindexedRows?: number; now?: () => number; epochMs?: () => number } = {},
): SearchIndexer {
  const maxUnindexed = options.maxUnindexedRows ?? MAX_UNINDEXED_ROWS;
  const now = options.now ?? (() => performance.now());
  /** Wall-clock time, to compare with a call's `created_at` (HOLD_RUNNING_MS). */
  const epochMs = options.epochMs ?? Date.now;
  const readMark = sqlite.prepare('SELECT indexed_upto FROM search_state').pluck();
  const stepEnd = sqlite.prepare(STEP_END_SQL).pluck();
  const firstHeld = sqlite.prepare(FIRST_HELD_SQL);
  const newest = sqlite.prepare('SELECT max(seq) FROM tool_calls').pluck();
  const fills = SEARCH_INDEX_FILL_SQL.map((sql) => sqlite.prepare(sql));
  const moveMark = sqlite.prepare('UPDATE search_state SET indexed_upto = ?');
  const merges = SEARCH_TABLES.map((table) => ({
    merge: sqlite.prepare(`INSERT INTO ${table.name} (${table.name}, rank) VALUES ('merge', ?)`),
    structure: sqlite.prepare(structureSql(table.name)).pluck(),
  }));
  let timer: unknown = null;
  /** Whether the pending timer is a catch-up step (kept on commits) or the idle wait (pushed back by each). */
  let catchingUp = false;
  let committedSinceStep = false;
  /** What the last step or read saw; a hint for scheduling, never used to decide what to index. */
  let knownMark = (readMark.get() as number | undefined) ?? 0;
  let knownNewest = (newest.get() as number | null) ?? 0;
  /** Set by a step a running call held back: in how many ms its hold ends. */
  let heldForMs: number | null = null;

  const step = sqlite.transaction((rows: number, hold: boolean): number => {
    const from = (readMark.get() as number) ?? 0;
    let to = (stepEnd.get({ from, rows, chars: INDEX_STEP_CHARS }) as number | null) ?? from;
    heldForMs = null;
    if (hold && to > from && knownNewest - from < maxUnindexed) {
      const since = epochMs() - HOLD_RUNNING_MS;
      const held = firstHeld.get({ from, to, since }) as { seq: number; created_at: number } | undefined;
      if (held) {
        to = held.seq - 1;
        heldForMs = Math.max(1, held.created_at - since);
      }
    }
    knownMark = to;
    if (to <= from) return 0;
    let indexed = 0;
    for (const fill of fills) indexed = fill.run({ from, to }).changes;
    moveMark.run(to);
    for (const { merge, structure } of merges) {
      merge.run(MERGE_PAGES_PER_STEP);
      const levels = fts5LevelSegments(structure.get() as Buffer | undefined);
      if (levels && Math.max(...levels) >= LEVEL_SEGMENTS_BEHIND) merge.run(MERGE_PAGES_BEHIND);
    }
    return indexed;
  });

  function schedule(ms: number, catchUp: boolean): void {
    if (timer !== null) timers.clearTimeout(timer);
    timer = timers.setTimeout(run, ms);
    catchingUp = catchUp;
  }

  function run(): void {
    timer = null;
    const writing = committedSinceStep;
    committedSinceStep = false;
    const started = now();
    try {
      step(INDEX_STEP_ROWS, true);
    } catch (error) {
      // Busy (another process writes) or closed: the next commit schedules it again.
      if ((error as { code?: unknown }).code !== 'SQLITE_BUSY')
        console.error('[toolscope] search indexing failed:', error);
      return;
    }
    // A running call holds the rest back: tried again when its hold ends (or at the next commit).
    if (heldForMs !== null) {
      schedule(heldForMs, false);
      return;
    }
    // Go on until caught up, yielding to the event loop between steps (paced while writes go on).
    if (knownMark >= knownNewest) return;
    const pause = Math.max(CATCH_UP_PAUSE_MS, ((now() - started) * (1 - CATCH_UP_SHARE)) / CATCH_UP_SHARE);
    schedule(writing ? pause : 0, true);
  }

  // Rows stored before this process (or before migrations 0010 and 0011) are indexed from the start.
  if (knownMark < knownNewest) schedule(INDEX_IDLE_MS, false);

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
      committedSinceStep = true;
      if (timer !== null && catchingUp) return;
      if (knownNewest - knownMark >= maxUnindexed) schedule(CATCH_UP_PAUSE_MS, true);
      else schedule(INDEX_IDLE_MS, false);
    },
    stop() {
      if (timer !== null) timers.clearTimeout(timer);
      timer = null;
      catchingUp = false;
    },
  };
}

/** The indexed text of a row, in characters (bytes for a BLOB). */
const rowChars = SEARCH_TABLES.flatMap((table) => table.columns)
  .map((name) => `coalesce(length(${searchedText(name)}), 0)`)
  .join(' + ');

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
