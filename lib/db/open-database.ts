import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { isContention, retryOnContention } from './contention';
import { type MigrateOptions, migrate } from './migrate';

/** The better-sqlite3 connection the stores work on. */
export type SqliteDatabase = Database.Database;

/**
 * WAL pages (4 KiB) between checkpoints: 10,000, about 40 MB, where SQLite's default is 1,000.
 * Every answered call is committed (see the trace store's group commit), and a checkpoint — the
 * one moment WAL with synchronous=NORMAL waits for the disk — came every hundred or so calls
 * answered one at a time; checkpointing ten times less often also writes each hot page (indexes,
 * tool counts) once where it was ten times. In `npm run bench` that gave more than twice the
 * calls/s with 50 in flight, and half the mean time of calls made one at a time. The server
 * checkpoints from a thread of its own (`wal-checkpointer.ts`) long before that: this is the
 * backstop, and what a process without that thread (tests, scripts) uses.
 */
export const WAL_AUTOCHECKPOINT_PAGES = 10_000;

/** How long a connection waits for another process's write lock while it opens (and migrates). */
export const OPEN_BUSY_TIMEOUT_MS = 5000;

/**
 * The server's busy wait once open. SQLite waits synchronously — the event loop stands still
 * for as long — so it is short: 50 ms rides out another process's short transaction (`npm run
 * keys`); past it, the trace store queues its writes and retries them on timers
 * (`group-commit.ts`), and other writes answer 503 STORE_UNAVAILABLE. A failed try measured
 * 51–62 ms (median 52) on a busy 2-core machine (load 14).
 */
export const SERVER_BUSY_TIMEOUT_MS = 50;

export interface OpenDatabaseOptions extends MigrateOptions {
  /** The busy timeout once open (default OPEN_BUSY_TIMEOUT_MS); opening always waits that long. */
  busyTimeoutMs?: number;
}

/**
 * Opens (creating if needed) the SQLite database at `filename` — or an in-memory one for
 * `':memory:'` — ready for use:
 * 1. creates the parent folder;
 * 2. sets the pragmas: WAL (readers never block the writer), synchronous=NORMAL (in WAL mode a
 *    commit survives a crash of the process; only an OS crash can lose the last commits),
 *    a checkpoint every WAL_AUTOCHECKPOINT_PAGES, foreign keys on, and a 5 s busy timeout for
 *    when another process holds the write lock;
 * 3. applies pending migrations;
 * 4. sets the busy timeout asked for (`busyTimeoutMs`: the server's is SERVER_BUSY_TIMEOUT_MS).
 * @example const db = openDatabase('.toolscope/toolscope.db')
 */
export function openDatabase(filename: string, options: OpenDatabaseOptions = {}): SqliteDatabase {
  const inMemory = filename === ':memory:' || filename === '';
  if (!inMemory) fs.mkdirSync(path.dirname(path.resolve(filename)), { recursive: true });
  const db = new Database(filename);
  try {
    db.pragma(`busy_timeout = ${OPEN_BUSY_TIMEOUT_MS}`);
    // Switching a fresh file to WAL takes an exclusive lock that SQLite will not wait for, and
    // processes racing to create the WAL files can see a transient I/O error: try again.
    if (!inMemory) {
      retryOnContention(
        () => db.pragma('journal_mode = WAL'),
        (error) => isContention(error) || String((error as { code?: unknown })?.code).startsWith('SQLITE_IOERR'),
      );
    }
    db.pragma('synchronous = NORMAL');
    db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
    db.pragma('foreign_keys = ON');
    migrate(db, options);
    if (options.busyTimeoutMs !== undefined)
      db.pragma(`busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs))}`);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}
