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
  /** After a failed commit, when the writes it left queued are tried again. */
  retryMs?: number;
  /** Told when a commit the group commit started by itself fails (a caller's `flush` throws instead). */
  onError?(error: unknown): void;
}

/**
 * A queue of writes committed together. Each write waits for its batch's commit, so that a
 * caller answers only once what it answers with is on disk; many calls finishing together pay
 * for one commit.
 */
export interface GroupCommit<W> {
  /**
   * Queues `write` under `key` (merged with a write still queued under it). The promise resolves
   * once the batch holding it is committed, and rejects with the commit's error if that fails;
   * the write then stays queued for a retry. A caller may ignore the promise: it never becomes an
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
  /** Queues `write` and commits it at once with everything queued; throws when the commit fails. */
  addNow(key: string, write: W): void;
  /** Commits everything queued now; throws when the commit fails (the writes stay queued). */
  flush(): void;
  /** Writes queued and not yet committed. */
  readonly size: number;
}

export const DEFAULT_MAX_BATCH = 256;
export const DEFAULT_RETRY_MS = 1000;
export const DEFAULT_DEFER_MS = 100;

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
  promise.catch(() => {});
  return { promise, resolve, reject };
}

/**
 * Creates a group commit:
 * 1. `add` queues a write and, for the first of a batch, sets a timer for `windowMs` on the
 *    injected timers (at `maxBatch` writes it commits at once instead);
 * 2. the timer, `addNow` or `flush` commits every queued write in one `commit` call;
 * 3. then every caller waiting on that batch is told: resolved, or rejected with the error, the
 *    writes queued again and retried after `retryMs`.
 * @example const group = createGroupCommit({ commit: (rows) => insertAll(rows), timers: systemCommitTimers })
 */
export function createGroupCommit<W>(options: GroupCommitOptions<W>): GroupCommit<W> {
  const { commit, timers } = options;
  const merge = options.merge ?? ((_queued: W, next: W) => next);
  const windowMs = options.windowMs ?? 0;
  const maxBatch = options.maxBatch ?? DEFAULT_MAX_BATCH;
  const retryMs = options.retryMs ?? DEFAULT_RETRY_MS;
  const deferMs = options.deferMs ?? DEFAULT_DEFER_MS;
  const onError = options.onError ?? (() => {});
  let pending = new Map<string, W>();
  let batch: Batch | null = null;
  let timer: unknown = null;
  /** The pending timer only serves deferred writes: a write someone waits for must not wait for it. */
  let timerIsDeferred = false;

  function queue(key: string, write: W): void {
    const queued = pending.get(key);
    pending.set(key, queued === undefined ? write : merge(queued, write));
  }

  function schedule(ms: number, deferred = false): void {
    if (timer !== null) {
      if (deferred || !timerIsDeferred) return;
      timers.clearTimeout(timer);
    }
    timerIsDeferred = deferred;
    timer = timers.setTimeout(() => {
      timer = null;
      flushReporting();
    }, ms);
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
    try {
      commit([...writes.values()]);
    } catch (error) {
      // Queued again ahead of anything newer, which is merged over them.
      const newer = pending;
      pending = writes;
      for (const [key, write] of newer) queue(key, write);
      schedule(retryMs);
      waiting?.reject(error);
      throw error;
    }
    waiting?.resolve();
  }

  function flushReporting(): void {
    try {
      flush();
    } catch (error) {
      onError(error);
    }
  }

  return {
    add(key, write) {
      batch ??= newBatch();
      const { promise } = batch;
      queue(key, write);
      if (pending.size >= maxBatch) flushReporting();
      else schedule(windowMs);
      return promise;
    },
    defer(key, write) {
      queue(key, write);
      if (pending.size >= maxBatch) flushReporting();
      else schedule(deferMs, true);
    },
    addNow(key, write) {
      queue(key, write);
      flush();
    },
    flush,
    get size() {
      return pending.size;
    },
  };
}
