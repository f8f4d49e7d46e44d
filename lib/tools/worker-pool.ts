import path from 'node:path';
import { type ResourceLimits, Worker } from 'node:worker_threads';
import { type Clock, systemClock, type TimerHandle } from '../executor/clock';

/** Why a task has no value: it ran too long, was aborted, threw, killed its worker, or never ran. */
export type PoolFailure = 'deadline' | 'aborted' | 'error' | 'crashed' | 'busy' | 'closed';

/** What `run` resolves to; it never rejects. */
export type PoolOutcome<T> = { ok: true; value: T } | { ok: false; reason: PoolFailure; message: string };

export interface WorkerPoolOptions {
  /**
   * CommonJS source of an expression that evaluates, once per worker, to the handler
   * `(payload) => result`. It runs in a fresh isolate: it may `require` packages (resolved from
   * `resolvePaths`) but sees nothing of the module that built it.
   */
  handler: string;
  /** Hard deadline of one task once a worker has it; the worker is terminated at the deadline. */
  deadlineMs: number;
  /** Workers kept warm. Default 2. */
  size?: number;
  /** Tasks waiting for a worker beyond which `run` answers `busy`. Default 256. */
  maxQueue?: number;
  /** Heap and stack limits of each worker: a task that exhausts them crashes its worker, not the server. */
  resourceLimits?: ResourceLimits;
  /** Folders `require` in the handler resolves packages from. Default: the working directory. */
  resolvePaths?: string[];
  clock?: Clock;
}

export interface WorkerPool<In, Out> {
  /**
   * Runs one task on a warm worker. Resolves with the handler's result, or with why there is
   * none: the deadline passed or the signal aborted (the worker is terminated and replaced), the
   * handler threw, the worker died, the queue was full, or the pool was closed.
   */
  run(payload: In, options?: { signal?: AbortSignal; deadlineMs?: number }): Promise<PoolOutcome<Out>>;
  /** Starts the workers now, so the first task does not wait for them to load. */
  warm(): void;
  /** Terminates every worker; waiting and running tasks resolve as `closed`. */
  close(): Promise<void>;
  /** Counts for tests and diagnostics; `started` counts every worker ever spawned. */
  stats(): { started: number; live: number; ready: number; busy: number; queued: number };
}

interface Task {
  id: number;
  payload: unknown;
  deadlineMs: number;
  signal: AbortSignal | undefined;
  onAbort: () => void;
  resolve: (outcome: PoolOutcome<unknown>) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  /** The batch the worker is running, in order; empty when idle. */
  batch: Task[];
  batchId: number;
  /** Written by the worker: [index of the task it runs, when it started it (Date.now())]. */
  progress: Float64Array;
  timer: TimerHandle | null;
  lastError: Error | null;
}

type Result = { ok: true; value: unknown } | { ok: false; message: string };
type Reply = { ready: true } | { id: number; results: Result[] };

/** Tasks one message carries at most: enough to pay one round trip for many, few enough to stay short. */
export const MAX_TASKS_PER_MESSAGE = 32;

/**
 * The program each worker runs around the handler: take a batch of tasks, run them in order, and
 * answer the batch in one message. Before each task it writes the task's index and start time to
 * the shared `progress` array, so the pool can hold every task to its own deadline.
 */
function workerSource(handler: string): string {
  return `'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { createRequire } = require('node:module');
const requireFrom = createRequire(require('node:path').join(workerData.resolvePaths[0], 'worker.js'));
const load = (id) => requireFrom(requireFrom.resolve(id, { paths: workerData.resolvePaths }));
const handle = ((require, ${keepNamesHelper()}) => ${handler})(load, (target) => target);
const progress = new Float64Array(workerData.progress);
const run = (payload) => {
  try {
    return { ok: true, value: handle(payload) };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
};
parentPort.on('message', (batch) => {
  const results = [];
  for (let i = 0; i < batch.payloads.length; i++) {
    progress[1] = Date.now();
    progress[0] = i;
    results.push(run(batch.payloads[i]));
  }
  try {
    parentPort.postMessage({ id: batch.id, results });
  } catch (error) {
    // One result that cannot be cloned must not cost the others theirs.
    const message = 'The result could not be sent: ' + error.message;
    parentPort.postMessage({
      id: batch.id,
      results: results.map((result) => {
        try {
          structuredClone(result);
          return result;
        } catch {
          return { ok: false, message };
        }
      }),
    });
  }
});
parentPort.postMessage({ ready: true });
`;
}

/**
 * Where a worker's `require` finds packages: the working directory (`npm start`, vitest) and the
 * folder of the script that started Node (a bundled server started from elsewhere).
 */
export function moduleFolders(): string[] {
  const entry = process.argv[1];
  return entry ? [process.cwd(), path.dirname(entry)] : [process.cwd()];
}

/**
 * The name of the helper esbuild's `keepNames` wraps named functions in (`__name(fn, "name")`,
 * renamed when minified). Handler source text built from this bundle's functions carries those
 * calls into the worker, which defines the helper under the name this module's own code shows.
 */
export function keepNamesHelper(): string {
  const probe = () => {
    const named = () => 0;
    return named;
  };
  return /([\w$]+)\(\s*\(\)\s*=>\s*0\s*,\s*["']named["']\s*\)/.exec(probe.toString())?.[1] ?? '__name';
}

/**
 * Creates a pool of `worker_threads` workers that run CPU-bound tasks off the event loop, under
 * a deadline that really stops them: a worker past its deadline (or whose task is aborted) is
 * terminated and replaced, since synchronous code cannot be interrupted any other way.
 *
 * 1. Workers start on the first task (or `warm()`) and are reused; each says when it is ready,
 *    so a task's deadline counts its own work, never a worker's start.
 * 2. Tasks wait in a bounded queue, in order; an aborted waiting task just leaves it.
 * 3. Payloads and results are structured-cloned; the handler is source text (see `handler`).
 * 4. Idle workers do not keep the process alive; workers with work to do do.
 * @example
 * const pool = createWorkerPool<number, number>({ handler: '(n) => n * 2', deadlineMs: 500 });
 * await pool.run(21); // { ok: true, value: 42 }
 */
export function createWorkerPool<In, Out>(options: WorkerPoolOptions): WorkerPool<In, Out> {
  const { deadlineMs, size = 2, maxQueue = 256, resourceLimits, clock = systemClock } = options;
  const resolvePaths = options.resolvePaths ?? [process.cwd()];
  const source = workerSource(options.handler);
  const slots = new Set<Slot>();
  const queue: Task[] = [];
  let nextId = 1;
  let nextBatchId = 1;
  let started = 0;
  let closed = false;

  function spawn(): void {
    const progress = new Float64Array(new SharedArrayBuffer(2 * Float64Array.BYTES_PER_ELEMENT));
    const worker = new Worker(source, {
      eval: true,
      workerData: { resolvePaths, progress: progress.buffer },
      resourceLimits,
    });
    const slot: Slot = { worker, ready: false, batch: [], batchId: 0, progress, timer: null, lastError: null };
    started += 1;
    slots.add(slot);
    worker.unref();
    worker.on('message', (reply: Reply) => {
      if ('ready' in reply) {
        slot.ready = true;
        dispatch();
      } else if (slot.batch.length > 0 && slot.batchId === reply.id) {
        const batch = release(slot);
        batch.forEach((task, i) => {
          const result = reply.results[i];
          if (task.signal?.aborted) return; // already answered by its abort
          task.resolve(
            result?.ok
              ? { ok: true, value: result.value }
              : { ok: false, reason: 'error', message: result?.message ?? 'The worker gave no result.' },
          );
        });
        dispatch();
      }
    });
    worker.on('error', (error) => {
      slot.lastError = error;
    });
    worker.on('exit', () => onExit(slot));
  }

  /** Keeps `size` workers alive (or starting) while the pool is open. */
  function fill(): void {
    while (!closed && slots.size < size) spawn();
  }

  /** Ends the slot's batch: its timer and abort listeners are removed; the tasks are returned. */
  function release(slot: Slot): Task[] {
    const batch = slot.batch;
    slot.batch = [];
    if (slot.timer !== null) clock.clearTimeout(slot.timer);
    slot.timer = null;
    for (const task of batch) task.signal?.removeEventListener('abort', task.onAbort);
    return batch;
  }

  /** The task the slot's worker runs now, and since when; before it reads the batch, its first since dispatch. */
  function current(slot: Slot): { index: number; startedAt: number } {
    return { index: Math.max(0, slot.progress[0] ?? 0), startedAt: slot.progress[1] ?? 0 };
  }

  /**
   * Holds the running task to its own deadline: at the timer, a worker that moved on to a later
   * task of its batch gets the rest of that task's deadline; one still on the same task is stopped.
   */
  function watch(slot: Slot, watched: number, ms: number): void {
    slot.timer = clock.setTimeout(() => {
      slot.timer = null;
      const { index, startedAt } = current(slot);
      const task = slot.batch[index];
      if (index !== watched && task) {
        const left = task.deadlineMs - (Date.now() - startedAt);
        if (left > 0) return watch(slot, index, left);
      }
      const late = slot.batch[index] ?? slot.batch[watched];
      kill(slot, late, 'deadline', `The task ran past its ${late?.deadlineMs} ms deadline and was stopped.`);
    }, ms);
  }

  function dispatch(): void {
    for (const slot of slots) {
      if (queue.length === 0) break;
      if (!slot.ready || slot.batch.length > 0) continue;
      const batch = queue.splice(0, MAX_TASKS_PER_MESSAGE);
      slot.batch = batch;
      slot.batchId = nextBatchId++;
      // Until the worker writes its own progress, the first task counts from now.
      slot.progress[1] = Date.now();
      slot.progress[0] = -1;
      watch(slot, 0, batch[0]!.deadlineMs);
      try {
        slot.worker.postMessage({ id: slot.batchId, payloads: batch.map((task) => task.payload) });
      } catch (error) {
        for (const task of release(slot)) {
          task.resolve({ ok: false, reason: 'error', message: `The task could not be sent: ${String(error)}` });
        }
      }
    }
    updateRefs();
  }

  /**
   * Terminates a worker and starts its replacement: `culprit` resolves with `reason`; the rest of
   * its batch goes back to the front of the queue (a finished task's result died with the worker;
   * tasks are pure, so it is computed again).
   */
  function kill(slot: Slot, culprit: Task | undefined, reason: PoolFailure, message: string): void {
    if (!slots.delete(slot)) return;
    const batch = release(slot);
    void slot.worker.terminate();
    culprit?.resolve({ ok: false, reason, message });
    requeue(batch.filter((task) => task !== culprit && !task.signal?.aborted));
    fill();
    dispatch();
  }

  /** Puts tasks back at the head of the queue, in order, listening for their aborts again. */
  function requeue(tasks: Task[]): void {
    for (const task of tasks) task.signal?.addEventListener('abort', task.onAbort, { once: true });
    queue.unshift(...tasks);
  }

  function onExit(slot: Slot): void {
    if (!slots.delete(slot)) return; // terminated on purpose
    const cause = slot.lastError ? describeExit(slot.lastError) : 'The worker exited.';
    const batch = release(slot);
    if (batch.length > 0) {
      const culprit = batch[current(slot).index] ?? batch[0];
      culprit?.resolve({ ok: false, reason: 'crashed', message: cause });
      requeue(batch.filter((task) => task !== culprit && !task.signal?.aborted));
    }
    if (!slot.ready && !closed) {
      // A worker that dies while loading would die again: fail what waits instead of looping.
      for (const task of queue.splice(0)) {
        task.signal?.removeEventListener('abort', task.onAbort);
        task.resolve({ ok: false, reason: 'crashed', message: `The worker could not start: ${cause}` });
      }
      updateRefs();
      return;
    }
    fill();
    dispatch();
  }

  /** Workers keep the process alive only while some task waits for them. */
  function updateRefs(): void {
    let pending = queue.length > 0;
    for (const slot of slots) pending ||= slot.batch.length > 0;
    for (const slot of slots) {
      if (pending) slot.worker.ref();
      else slot.worker.unref();
    }
  }

  /** A task's signal aborted: it leaves the queue, or its answer is given now and its worker stopped if it runs. */
  function abort(task: Task): void {
    const waiting = queue.indexOf(task);
    if (waiting >= 0) {
      queue.splice(waiting, 1);
      task.resolve({ ok: false, reason: 'aborted', message: 'The task was aborted.' });
      updateRefs();
      return;
    }
    for (const slot of slots) {
      const at = slot.batch.indexOf(task);
      if (at < 0) continue;
      if (at < current(slot).index) {
        // Its worker already ran it and moved on: the result is dropped when the batch answers.
        task.resolve({ ok: false, reason: 'aborted', message: 'The task was aborted.' });
      } else if (at > current(slot).index) {
        // Not started yet: it leaves the batch (the worker's result for it is ignored).
        task.resolve({ ok: false, reason: 'aborted', message: 'The task was aborted.' });
      } else {
        kill(slot, task, 'aborted', 'The task was aborted and its worker stopped.');
      }
      return;
    }
  }

  return {
    run(payload, runOptions = {}) {
      const { signal } = runOptions;
      if (closed) return Promise.resolve({ ok: false, reason: 'closed', message: 'The worker pool is closed.' });
      if (signal?.aborted) return Promise.resolve({ ok: false, reason: 'aborted', message: 'The task was aborted.' });
      if (queue.length >= maxQueue) {
        return Promise.resolve({
          ok: false,
          reason: 'busy',
          message: `${queue.length} tasks are already waiting for a worker.`,
        });
      }
      return new Promise<PoolOutcome<Out>>((resolve) => {
        const task: Task = {
          id: nextId++,
          payload,
          deadlineMs: Math.min(runOptions.deadlineMs ?? deadlineMs, deadlineMs),
          signal,
          resolve: resolve as Task['resolve'],
          onAbort: () => abort(task),
        };
        signal?.addEventListener('abort', task.onAbort, { once: true });
        queue.push(task);
        fill();
        dispatch();
      });
    },
    warm: fill,
    async close() {
      closed = true;
      for (const task of queue.splice(0)) {
        task.signal?.removeEventListener('abort', task.onAbort);
        task.resolve({ ok: false, reason: 'closed', message: 'The worker pool is closed.' });
      }
      const stopping: Promise<number>[] = [];
      for (const slot of [...slots]) {
        slots.delete(slot);
        for (const task of release(slot))
          task.resolve({ ok: false, reason: 'closed', message: 'The worker pool is closed.' });
        stopping.push(slot.worker.terminate());
      }
      await Promise.all(stopping);
    },
    stats() {
      const all = [...slots];
      return {
        started,
        live: all.length,
        ready: all.filter((slot) => slot.ready).length,
        busy: all.filter((slot) => slot.batch.length > 0).length,
        queued: queue.length,
      };
    },
  };
}

function describeExit(error: Error): string {
  if ((error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY') return 'The task ran out of memory.';
  return error.message;
}
