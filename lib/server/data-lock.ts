import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';

/** The SQLite file whose exclusive lock is the data folder's lock. Never opened other than by SQLite. */
export const LOCK_FILE = 'toolscope.lock';
/** Who holds the lock, for the messages only: written once the lock is taken, removed on release. */
export const OWNER_FILE = 'toolscope.lock.json';

/** What the holder of a data folder records about itself. */
export interface LockOwner {
  pid: number;
  host: string;
  /** When it took the lock (ISO 8601). */
  since: string;
  /** Linux: the process's start time in clock ticks since boot (/proc/<pid>/stat), to tell a reused pid. */
  procStart?: number;
  /** Random, so that a holder removes only its own owner file. */
  token: string;
}

/** The data folder's lock, held until `release` or until the process ends, however it ends. */
export interface DataFolderLock {
  readonly dir: string;
  /** Removes the owner file and lets the lock go. Idempotent. */
  release(): void;
}

/** Another live process holds the data folder. Its message says which one, and what to do. */
export class DataFolderLockedError extends Error {
  override readonly name = 'DataFolderLockedError';
  constructor(
    readonly dir: string,
    readonly owner: LockOwner | undefined,
  ) {
    const who = owner
      ? `another Toolscope (pid ${owner.pid} on host ${owner.host}, since ${owner.since})`
      : 'another Toolscope process (it has not recorded its pid yet)';
    super(
      `The data folder ${dir} is in use by ${who}. Stop that process, ` +
        'or give this one another data folder with TOOLSCOPE_DATA_DIR=<folder>.',
    );
  }
}

/**
 * Whether `error` is a `DataFolderLockedError` from any copy of this module: matched by name and
 * shape, not `instanceof`, because the production build can hold a copy of the class per chunk.
 */
export function isDataFolderLockedError(error: unknown): error is DataFolderLockedError {
  return (
    error instanceof Error &&
    error.name === 'DataFolderLockedError' &&
    typeof (error as { dir?: unknown }).dir === 'string'
  );
}

export interface AcquireOptions {
  /** Where the one-line notice goes when a lock left by a dead process is taken over. */
  log?: (message: string) => void;
  /** How long a refused start waits for the holder to record itself, for the message. */
  ownerWaitMs?: number;
}

/**
 * Takes the lock on data folder `dir`, so that two Toolscope processes never share one by
 * accident; throws `DataFolderLockedError` when a live process holds it.
 *
 * Design: the lock is an OS file lock, not a pid file. `dir/toolscope.lock` is a small SQLite
 * database on which this process opens `BEGIN EXCLUSIVE` and keeps it open for its lifetime;
 * SQLite takes that as a POSIX advisory lock (fcntl) on the file.
 * - Atomic: the kernel grants the lock to exactly one of any number of processes starting at once
 *   (no check-then-write window).
 * - Never stale: the kernel drops the lock when the process ends — exit, crash, SIGKILL — and a
 *   power loss leaves no lock at all. So a dead holder never blocks the next start, and there is
 *   no liveness guess to get wrong: no pid reuse problem (a pid file must tell a dead holder from
 *   an unrelated process that got its pid, and cannot see processes of another pid namespace or
 *   container that share the folder; an fcntl lock can).
 * - Plain Node: better-sqlite3 is already a dependency; Node itself has no flock.
 * - In-process: SQLite tracks locks per file across its connections in one process, so a second
 *   instance in the same process is refused too, and a refused attempt closing its connection does
 *   not drop the holder's lock (a POSIX lock dies with *any* close of the file by the process —
 *   which is why nothing but SQLite may ever open `toolscope.lock`).
 * The limits are SQLite's own: on a network filesystem without working locks neither this nor
 * the database is safe.
 *
 * The lock cannot say who holds it, so the holder writes `toolscope.lock.json` (pid, host, start
 * time) once it has the lock, and removes it on release. Found when taking the lock, that file
 * means its writer ended without releasing: it is taken over with a one-line notice.
 */
export function acquireDataFolderLock(dir: string, options: AcquireOptions = {}): DataFolderLock {
  const log = options.log ?? ((message: string) => console.warn(message));
  fs.mkdirSync(dir, { recursive: true });
  const lockPath = path.join(dir, LOCK_FILE);
  const ownerPath = path.join(dir, OWNER_FILE);
  // No busy timeout: a held lock is an answer, not something to wait out.
  const db = new Database(lockPath, { timeout: 0 });
  try {
    // Nothing is ever written: keep even the empty rollback journal off the disk.
    db.pragma('journal_mode = MEMORY');
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if (isBusy(error)) throw new DataFolderLockedError(dir, waitForOwner(ownerPath, options.ownerWaitMs ?? 1_000));
    throw new Error(`Cannot lock the data folder ${dir}: ${(error as Error).message}`, { cause: error });
  }

  const me: LockOwner = {
    pid: process.pid,
    host: os.hostname(),
    since: new Date().toISOString(),
    procStart: procStartOf(process.pid),
    token: randomBytes(8).toString('hex'),
  };
  try {
    const left = readOwner(ownerPath);
    if (left || fs.existsSync(ownerPath)) {
      const by = left ? `pid ${left.pid} on host ${left.host} (since ${left.since})` : 'a process';
      log(`[toolscope] took over the lock on ${dir} left by ${by}, which ended without releasing it`);
    }
    writeOwner(ownerPath, me);
  } catch (error) {
    db.close();
    throw error;
  }

  let released = false;
  return {
    dir,
    release() {
      if (released) return;
      released = true;
      // The owner file goes first, while the lock is still held: nobody can have replaced it.
      try {
        if (readOwner(ownerPath)?.token === me.token) fs.rmSync(ownerPath, { force: true });
      } catch (error) {
        console.error(`[toolscope] could not remove ${ownerPath}:`, error);
      }
      db.close();
    },
  };
}

function isBusy(error: unknown): boolean {
  const code = String((error as { code?: unknown } | null)?.code ?? '');
  return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
}

/**
 * The holder, as its owner file names it. A holder that has just taken the lock may not have
 * written the file yet, and the file found may still be the one of a dead predecessor: wait a
 * moment for one naming a live process (on this host; another host's cannot be checked).
 */
function waitForOwner(ownerPath: string, waitMs: number): LockOwner | undefined {
  const deadline = Date.now() + waitMs;
  for (;;) {
    let owner: LockOwner | undefined;
    try {
      owner = readOwner(ownerPath);
    } catch {
      owner = undefined;
    }
    if (owner && (owner.host !== os.hostname() || isAlive(owner))) return owner;
    if (Date.now() >= deadline) return undefined;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 25);
  }
}

function isAlive(owner: LockOwner): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // The pid is in use; by the same process only if it started at the same time.
  const start = procStartOf(owner.pid);
  return owner.procStart === undefined || start === undefined || start === owner.procStart;
}

/** Linux: field 22 of /proc/<pid>/stat (start time after boot, in clock ticks); elsewhere undefined. */
function procStartOf(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces: state is field 3.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = Number(fields[22 - 3]);
    return Number.isFinite(start) ? start : undefined;
  } catch {
    return undefined;
  }
}

function readOwner(ownerPath: string): LockOwner | undefined {
  let text: string;
  try {
    text = fs.readFileSync(ownerPath, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const owner = JSON.parse(text) as Partial<LockOwner>;
    if (typeof owner.pid === 'number' && typeof owner.host === 'string') {
      return { since: '?', token: '', ...owner } as LockOwner;
    }
  } catch {
    // Unreadable (hand-edited, or cut short by a power loss): it names nobody.
  }
  return undefined;
}

/** Written to a private file, then renamed into place: a reader never sees half of it. */
function writeOwner(ownerPath: string, owner: LockOwner): void {
  const temp = `${ownerPath}.${process.pid}.${owner.token}.tmp`;
  try {
    fs.writeFileSync(temp, `${JSON.stringify(owner)}\n`);
    fs.renameSync(temp, ownerPath);
  } finally {
    fs.rmSync(temp, { force: true });
  }
}
