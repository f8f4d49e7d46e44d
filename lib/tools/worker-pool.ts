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
  task: Task | null;
  timer: TimerHandle | null;
  lastError: Error | null;
}

type Reply = { ready: true } | { id: number; ok: true; value: unknown } | { id: number; ok: false; message: string };

/** The program each worker runs around the handler: answer one message at a time, say when ready. */
function workerSource(handler: string): string {
  return `'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { createRequire } = require('node:module');
const requireFrom = createRequire(require('node:path').join(workerData.resolvePaths[0], 'worker.js'));
const load = (id) => requireFrom(requireFrom.resolve(id, { paths: workerData.resolvePaths }));
const handle = ((require, ${keepNamesHelper()}) => ${handler})(load, (target) => target);
parentPort.on('message', (task) => {
  let reply;
  try {
    reply = { id: task.id, ok: true, value: handle(task.payload) };
  } catch (error) {
    reply = { id: task.id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  try {
    parentPort.postMessage(reply);
  } catch (error) {
    parentPort.postMessage({ id: task.id, ok: false, message: 'The result could not be sent: ' + error.message });
  }
});
parentPort.postMessage({ ready: true });
`;
}

/**
 * The name of the helper esbuild's `keepNames` wraps named functions in (`__name(fn, "name")`,
 * renamed when minified). Handler source text built from this bundle's functions carries those
 * calls into the worker, which defines the helper under the name this module's own code shows.
 */
function keepNamesHelper(): string {
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
  let started = 0;
  let closed = false;

  function spawn(): void {
    const worker = new Worker(source, { eval: true, workerData: { resolvePaths }, resourceLimits });
    const slot: Slot = { worker, ready: false, task: null, timer: null, lastError: null };
    started += 1;
    slots.add(slot);
    worker.unref();
    worker.on('message', (reply: Reply) => {
      if ('ready' in reply) {
        slot.ready = true;
        dispatch();
      } else if (slot.task?.id === reply.id) {
        const task = release(slot);
        task.resolve(
          reply.ok ? { ok: true, value: reply.value } : { ok: false, reason: 'error', message: reply.message },
        );
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

  function release(slot: Slot): Task {
    const task = slot.task as Task;
    slot.task = null;
    if (slot.timer !== null) clock.clearTimeout(slot.timer);
    slot.timer = null;
    task.signal?.removeEventListener('abort', task.onAbort);
    return task;
  }

  function dispatch(): void {
    for (const slot of slots) {
      if (queue.length === 0) break;
      if (!slot.ready || slot.task) continue;
      const task = queue.shift() as Task;
      slot.task = task;
      slot.timer = clock.setTimeout(
        () => kill(slot, 'deadline', `The task ran past its ${task.deadlineMs} ms deadline and was stopped.`),
        task.deadlineMs,
      );
      try {
        slot.worker.postMessage({ id: task.id, payload: task.payload });
      } catch (error) {
        release(slot).resolve({ ok: false, reason: 'error', message: `The task could not be sent: ${String(error)}` });
      }
    }
    updateRefs();
  }

  /** Terminates a worker (its task resolves with `reason`) and starts its replacement. */
  function kill(slot: Slot, reason: PoolFailure, message: string): void {
    if (!slots.delete(slot)) return;
    const task = slot.task ? release(slot) : null;
    void slot.worker.terminate();
    task?.resolve({ ok: false, reason, message });
    fill();
    dispatch();
  }

  function onExit(slot: Slot): void {
    if (!slots.delete(slot)) return; // terminated on purpose
    const cause = slot.lastError ? describeExit(slot.lastError) : 'The worker exited.';
    if (slot.task) release(slot).resolve({ ok: false, reason: 'crashed', message: cause });
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
    const pending = queue.length > 0 || [...slots].some((slot) => slot.task);
    for (const slot of slots) {
      if (pending) slot.worker.ref();
      else slot.worker.unref();
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
          onAbort: () => {
            const waiting = queue.indexOf(task);
            if (waiting >= 0) {
              queue.splice(waiting, 1);
              task.resolve({ ok: false, reason: 'aborted', message: 'The task was aborted.' });
              updateRefs();
              return;
            }
            for (const slot of slots) {
              if (slot.task === task) kill(slot, 'aborted', 'The task was aborted and its worker stopped.');
            }
          },
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
        if (slot.task) release(slot).resolve({ ok: false, reason: 'closed', message: 'The worker pool is closed.' });
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
        busy: all.filter((slot) => slot.task).length,
        queued: queue.length,
      };
    },
  };
}

function describeExit(error: Error): string {
  if ((error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY') return 'The task ran out of memory.';
  return error.message;
}
