import { Worker } from 'node:worker_threads';
import { keepNamesHelper, moduleFolders } from '../tools/worker-pool';
import { callSpansProgram, unpackCallItems } from './call-spans';
import type { OtelSettings } from './otel-settings';

/** The exporter's side of the event loop: hands finished calls to the worker that makes their spans. */
export interface CallSpansWorker {
  /** Resolves once the worker has turned these calls (`packCallItem`'s array) into spans, queued for export. */
  export(packed: unknown[]): Promise<void>;
  /** Exports what the worker holds, then stops it (within `timeoutMs`). */
  shutdown(timeoutMs?: number): Promise<void>;
}

/**
 * The worker's program: `callSpansProgram` from its source text (no file path survives every
 * way this code runs: TypeScript under vitest, Next's server chunks, an esbuild bundle), the SDK
 * required from the app's `node_modules`; the calls arrive packed (`unpackCallItems` from its source too). It answers each batch once its spans are made, says
 * what the exporter logs, and on `shutdown` exports what it holds before it says `closed`.
 */
function workerSource(): string {
  return `'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { createRequire } = require('node:module');
const requireFrom = createRequire(require('node:path').join(workerData.resolvePaths[0], 'worker.js'));
const load = (id) => requireFrom(requireFrom.resolve(id, { paths: workerData.resolvePaths }));
const program = ((${keepNamesHelper()}) => (${callSpansProgram.toString()}))((target) => target);
const unpack = ((${keepNamesHelper()}) => (${unpackCallItems.toString()}))((target) => target);
const spans = program(load)(workerData.settings, { log: (message) => parentPort.postMessage({ log: message }) });
parentPort.on('message', (message) => {
  if (message.items) {
    for (const item of unpack(message.items)) spans.export(item);
    parentPort.postMessage({ done: message.id });
  } else if (message.shutdown) {
    spans.shutdown().catch(() => {}).then(() => parentPort.postMessage({ closed: true }));
  }
});
`;
}

/**
 * Starts the OpenTelemetry export in a worker thread: building a call's spans and serializing
 * them for OTLP cost ~60 µs of the event loop a call, so the server only posts the finished
 * records (the fan-out sink bounds what waits). A worker that fails is said once and export
 * stops; calls are never affected.
 */
export function startCallSpansWorker(settings: OtelSettings, log: (message: string) => void): CallSpansWorker {
  const worker = new Worker(workerSource(), {
    eval: true,
    workerData: { settings, resolvePaths: moduleFolders() },
  });
  // Its batch timer must not hold the process open; shutdown flushes it.
  worker.unref();
  const waiting = new Map<number, () => void>();
  let nextId = 0;
  let stopped = false;
  let onClosed: (() => void) | null = null;
  const stop = (why: string | null) => {
    if (stopped) return;
    stopped = true;
    if (why) log(`[toolscope] OpenTelemetry export stopped: ${why}; calls are not affected`);
    for (const resolve of waiting.values()) resolve();
    waiting.clear();
    onClosed?.();
  };
  worker.on('message', (message: { done?: number; log?: string; closed?: boolean }) => {
    if (message.done !== undefined) {
      waiting.get(message.done)?.();
      waiting.delete(message.done);
    } else if (message.log !== undefined) log(message.log);
    else if (message.closed) onClosed?.();
  });
  worker.on('error', (error) => stop(`its worker failed (${error.message})`));
  worker.on('exit', (code) => stop(code === 0 ? null : `its worker exited (${code})`));
  return {
    export(packed) {
      if (stopped) return Promise.resolve();
      const id = nextId++;
      return new Promise<void>((resolve) => {
        waiting.set(id, resolve);
        worker.postMessage({ id, items: packed });
      });
    },
    async shutdown(timeoutMs = 5_000) {
      if (!stopped) {
        await new Promise<void>((resolve) => {
          onClosed = resolve;
          worker.postMessage({ shutdown: true });
          setTimeout(resolve, timeoutMs).unref();
        });
      }
      stopped = true;
      await worker.terminate();
    },
  };
}
