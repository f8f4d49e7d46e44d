import type { CommitTimers } from './commit-timers';

export interface GroupCommitOptions<W> {
  /** Writes a batch in one transaction; throws when it cannot, having written none of it. */
  commit(writes: W[]): void;
  /** Combines the write queued under a key with a newer one for the same key; default: the newer one. */
  merge?(queued: W, next: W): W;
  timers: CommitTimers;
  /**
   * How long the first queued write waits for others before the commit: 0 (the default) is the
   * end of the current turn of the event loop, so what finishes in the same turn shares a commit.
   */
  windowMs?: number;
  /** Queued writes that force a commit at once, so a burst never queues without bound. */
  maxBatch?: number;
  /**
   * How long a deferred write may wait for a commit it can join (default 100 ms): long enough
   * for a quick call's start to be written together with its finish, short enough that a slow
   * call is on disk while it runs (a crash then leaves it `interrupted`, not missing).
   */
  deferMs?: number;
  /** After a failed commit, when the writes it left queued are first tried again; doubled per failure in a row. */
  retryMs?: number;
  /** The longest wait between two tries while commits keep failing. */
  maxRetryMs?: number;
  /**
   * Whether a commit's error is the database's (locked, full, read-only: the same writes are
   * retried later, whole) rather than one write's (the batch is split to find it). Default: every
   * error is the database's.
   */
  isStoreWide?(error: unknown): boolean;
  /** How often writes set aside (each failing by itself) are tried again, each alone. */
  setAsideRetryMs?: number;
  /** Told of every failed commit, with how many failed in a row (1 for the first). */
  onError?(error: unknown, failures: number): void;
  /** Told when a commit succeeds after `failures` failed in a row. */
  onRecover?(failures: number): void;
  /** Told when a write that fails by itself is set aside. */
  onSetAside?(key: string, error: unknown): void;
}

/** A write that could not be committed before `close`, and why. */
export interface LostWrite {
  key: string;
  error: unknown;
}

/**
 * A queue of writes committed together. Each write waits for its batch's commit, so that a
 * caller answers only once what it answers with is on disk; many calls finishing together pay
 * for one commit.
 *
 * When commits fail, nothing waits on the database: the writes stay queued and are retried on
 * the timers with backoff (`retryMs` doubling up to `maxRetryMs`), and no other operation of
 * the queue tries a commit meanwhile (`flush` does: it is asked for). A write that fails by
 * itself (not the database) is found by halving its batch and set aside, so it never holds up
 * the others; it is tried again every `setAsideRetryMs`, alone, or as soon as a newer write for
 * its key arrives.
 */
export interface GroupCommit<W> {
  /**
   * Queues `write` under `key` (merged with a write still queued under it). The promise resolves
   * once the commit of its batch is done — every write of it on disk, but those set aside (each
   * failing by itself): a caller for whom that matters asks `setAsideError(key)` then — and
   * rejects with the commit's error when that failed (the writes then stay queued for a retry).
   * While commits are failing, the write waits for the next retry. One promise per batch, shared
   * by its callers (no cost per write). A caller may ignore the promise: it never becomes an
   * unhandled rejection.
   */
  add(key: string, write: W): Promise<void>;
  /**
   * Queues `write` without asking for a commit soon: it is committed with the next one (a later
   * `add`, `addNow` or `flush`), at `maxBatch` queued writes, and at the latest `deferMs` later.
   * For a write nobody waits for that a newer write of the same key will follow (and usually
   * replace).
   */
  defer(key: string, write: W): void;
  /**
   * Queues `write` and commits it at once with everything queued; throws when the commit fails,
   * when `write` itself was set aside, or — without trying — while commits are failing (the
   * error of the last one). The write stays queued (or set aside) either way.
   */
  addNow(key: string, write: W): void;
  /** Commits everything queued now; throws when the commit fails (the writes stay queued). */
  flush(): void;
  /** Commits everything queued now unless commits are failing (the retry timer has it); never throws. */
  tryFlush(): void;
  /**
   * Stops the timers and tries a last commit of everything queued and set aside; returns the
   * writes that could not be committed (lost once the caller lets go). Later writes are queued
   * but never committed by timer.
   */
  close(): LostWrite[];
  /** Writes queued and not yet committed (set-aside ones not included). */
  readonly size: number;
  /** Writes set aside: each failed by itself and waits for its rare retry. */
  readonly setAside: number;
  /** The keys of the first `limit` writes set aside. */
  setAsideKeys(limit: number): string[];
  /** The error of the write set aside under `key`; undefined when none is. */
  setAsideError(key: string): unknown;
  /** Whether the last commit failed (the database's error): writes wait for the retry timer. */
  readonly failing: boolean;
  /** How long after the last failure the next try comes (ms); `retryMs` when not failing. */
  readonly retryDelayMs: number;
}

export const DEFAULT_MAX_BATCH = 256;
export const DEFAULT_RETRY_MS = 50;
export const DEFAULT_MAX_RETRY_MS = 2000;
export const DEFAULT_DEFER_MS = 100;
export const DEFAULT_SET_ASIDE_RETRY_MS = 60_000;

interface Batch {
  promise: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Marks the rejection handled; whoever awaits `promise` still sees it.
  promise.catch(noop);
  return { promise, resolve, reject };
}

function noop(): void {}

/** A commit that failed with the database's error, and the writes it did not commit, in order. */
class Unwritten<W> {
  constructor(
    readonly error: unknown,
    readonly left: Iterable<[string, W]>,
  ) {}
}

type TimerKind = 'window' | 'defer' | 'retry';

/**
 * Creates a group commit:
 * 1. `add` queues a write and, for the first of a batch, sets a timer for `windowMs` on the
 *    injected timers (at `maxBatch` writes it commits at once instead);
 * 2. the timer, `addNow` or `flush` commits every queued write in one `commit` call;
 * 3. a commit failing with one write's error is split in halves, recursively, until the writes
 *    that fail alone are found and set aside; the rest is committed;
 * 4. then every caller waiting on that batch is told: resolved, or rejected with the error —
 *    on the database's error the writes are queued again and retried after a backoff.
 * @example const group = createGroupCommit({ commit: (rows) => insertAll(rows), timers: systemCommitTimers })
 */
export function createGroupCommit<W>(options: GroupCommitOptions<W>): GroupCommit<W> {
  const { commit, timers } = options;
  const merge = options.merge ?? ((_queued: W, next: W) => next);
  const windowMs = options.windowMs ?? 0;
  const maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
  const retryMs = options.retryMs ?? DEFAULT_RETRY_MS;
  const maxRetryMs = Math.max(retryMs, options.maxRetryMs ?? DEFAULT_MAX_RETRY_MS);
  const deferMs = options.deferMs ?? DEFAULT_DEFER_MS;
  const setAsideRetryMs = options.setAsideRetryMs ?? DEFAULT_SET_ASIDE_RETRY_MS;
  const isStoreWide = options.isStoreWide ?? (() => true);
  const onError = options.onError ?? noop;
  const onRecover = options.onRecover ?? noop;
  const onSetAside = options.onSetAside ?? noop;
  let pending = new Map<string, W>();
  let batch: Batch | null = null;
  let timer: unknown = null;
  let timerKind: TimerKind = 'window';
  /** Commits failed in a row; 0 while they succeed. */
  let failures = 0;
  let lastError: unknown = null;
  const setAside = new Map<string, { write: W; error: unknown }>();
  let setAsideTimer: unknown = null;
  let closed = false;

  const retryDelay = () => Math.min(maxRetryMs, retryMs * 2 ** Math.max(0, failures - 1));

  function queue(key: string, write: W): void {
    if (setAside.size > 0) {
      // A newer write of a set-aside key takes it back into the queue: the newer state may commit.
      const aside = setAside.get(key);
      if (aside !== undefined) {
        setAside.delete(key);
        write = merge(aside.write, write);
      }
    }
    const queued = pending.get(key);
    pending.set(key, queued === undefined ? write : merge(queued, write));
  }

  /**
   * Sets the commit timer. A window timer replaces a deferred one (a write someone waits for
   * must not wait for it); while commits fail only the retry timer runs.
   */
  function schedule(ms: number, kind: TimerKind): void {
    if (closed || (failures > 0 && kind !== 'retry')) return;
    if (timer !== null) {
      if (kind !== 'retry' && (kind === 'defer' || timerKind !== 'defer')) return;
      timers.clearTimeout(timer);
    }
    timerKind = kind;
    timer = timers.setTimeout(() => {
      timer = null;
      flushReporting();
    }, ms);
  }

  /**
   * Commits `writes`; on one write's error, commits halves of it in order, recursively, so that
   * each write failing alone is found. Returns those, with their errors (null when none); throws
   * `Unwritten` on the database's error, with the writes not committed yet.
   */
  function commitIsolating(writes: Map<string, W>): Map<string, unknown> | null {
    let firstError: unknown;
    try {
      commit([...writes.values()]);
      return null;
    } catch (error) {
      if (isStoreWide(error)) throw new Unwritten(error, writes);
      firstError = error;
    }
    const entries = [...writes];
    const isolated = new Map<string, unknown>();
    // Ranges are tried left to right: on the database's error at `lo`, everything before it is
    // committed or set aside, everything from it on is left.
    const split = (lo: number, hi: number, error: unknown): void => {
      if (hi - lo === 1) {
        isolated.set((entries[lo] as [string, W])[0], error);
        return;
      }
      const mid = (lo + hi) >>> 1;
      attempt(lo, mid);
      attempt(mid, hi);
    };
    const attempt = (lo: number, hi: number): void => {
      try {
        commit(entries.slice(lo, hi).map(([, write]) => write));
      } catch (error) {
        if (isStoreWide(error)) throw new Unwritten(error, entries.slice(lo));
        split(lo, hi, error);
      }
    };
    try {
      split(0, entries.length, firstError);
    } catch (error) {
      for (const [key, cause] of isolated) putAside(key, writes.get(key) as W, cause);
      throw error;
    }
    return isolated;
  }

  function putAside(key: string, write: W, error: unknown): void {
    setAside.set(key, { write, error });
    onSetAside(key, error);
    if (setAsideTimer === null && !closed) setAsideTimer = timers.setTimeout(retrySetAside, setAsideRetryMs);
  }

  /** Tries each set-aside write alone; those failing by themselves again stay aside. */
  function retrySetAside(): void {
    setAsideTimer = null;
    if (failures === 0) {
      for (const [key, aside] of [...setAside]) {
        try {
          commit([aside.write]);
          setAside.delete(key);
        } catch (error) {
          if (isStoreWide(error)) break;
          aside.error = error;
        }
      }
    }
    if (setAside.size > 0 && !closed) setAsideTimer = timers.setTimeout(retrySetAside, setAsideRetryMs);
  }

  function flush(): void {
    if (timer !== null) {
      timers.clearTimeout(timer);
      timer = null;
    }
    if (pending.size === 0) return;
    const writes = pending;
    const waiting = batch;
    pending = new Map();
    batch = null;
    let isolated: Map<string, unknown> | null;
    try {
      isolated = commitIsolating(writes);
    } catch (caught) {
      const { error, left } = caught instanceof Unwritten ? (caught as Unwritten<W>) : new Unwritten(caught, writes);
      // Queued again ahead of anything newer, which is merged over them.
      const newer = pending;
      pending = left instanceof Map ? left : new Map(left);
      for (const [key, write] of newer) queue(key, write);
      failures += 1;
      lastError = error;
      if (!closed) onError(error, failures);
      schedule(retryDelay(), 'retry');
      waiting?.reject(error);
      throw error;
    }
    if (failures > 0) {
      const failed = failures;
      failures = 0;
      onRecover(failed);
    }
    if (isolated) for (const [key, error] of isolated) putAside(key, writes.get(key) as W, error);
    waiting?.resolve();
  }

  function flushReporting(): void {
    try {
      flush();
    } catch {
      // Told through onError; the retry is scheduled.
    }
  }

  return {
    add(key, write) {
      if (closed) {
        const refused = Promise.reject(new Error('The group commit is closed: the write was not queued'));
        refused.catch(noop);
        return refused;
      }
      batch ??= newBatch();
      const { promise } = batch;
      queue(key, write);
      if (failures === 0) {
        if (pending.size >= maxBatch) flushReporting();
        else schedule(windowMs, 'window');
      }
      return promise;
    },
    defer(key, write) {
      queue(key, write);
      if (failures === 0) {
        if (pending.size >= maxBatch) flushReporting();
        else schedule(deferMs, 'defer');
      }
    },
    addNow(key, write) {
      queue(key, write);
      if (failures > 0) throw lastError;
      flush();
      const aside = setAside.get(key);
      if (aside !== undefined) throw aside.error;
    },
    flush,
    tryFlush() {
      if (failures === 0 && pending.size > 0) flushReporting();
    },
    close() {
      closed = true;
      if (setAsideTimer !== null) timers.clearTimeout(setAsideTimer);
      setAsideTimer = null;
      const lost: LostWrite[] = [];
      try {
        flush();
      } catch (error) {
        for (const key of pending.keys()) lost.push({ key, error });
        pending = new Map();
      }
      let storeError: unknown = null;
      for (const [key, aside] of setAside) {
        if (storeError === null) {
          try {
            commit([aside.write]);
            continue;
          } catch (error) {
            if (isStoreWide(error)) storeError = error;
            else aside.error = error;
          }
        }
        lost.push({ key, error: storeError ?? aside.error });
      }
      setAside.clear();
      if (timer !== null) timers.clearTimeout(timer);
      timer = null;
      return lost;
    },
    get size() {
      return pending.size;
    },
    get setAside() {
      return setAside.size;
    },
    setAsideError: (key) => setAside.get(key)?.error,
    setAsideKeys(limit) {
      const keys: string[] = [];
      for (const key of setAside.keys()) {
        if (keys.length >= limit) break;
        keys.push(key);
      }
      return keys;
    },
    get failing() {
      return failures > 0;
    },
    get retryDelayMs() {
      return failures > 0 ? retryDelay() : retryMs;
    },
  };
}
