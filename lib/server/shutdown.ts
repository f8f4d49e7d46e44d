import type { Server } from 'node:http';
import type { Toolscope } from './create-toolscope';

export const SHUTDOWN_REASON = { by: 'shutdown', reason: 'Toolscope is shutting down' } as const;

/** After the calls are recorded: time for their HTTP responses to be written before the process exits. */
const RESPONSE_GRACE_MS = 200;

export interface ShutdownOptions {
  /** How long the calls in flight get to be cancelled and recorded before the store is closed anyway. */
  cancelDeadlineMs?: number;
  /** After this long the process exits whatever is still pending. */
  hardDeadlineMs?: number;
  exit?: (code: number) => void;
  /** The HTTP server to stop: it takes no new connections at once, and its last ones are closed before exit. */
  server?: Pick<Server, 'close' | 'closeIdleConnections' | 'closeAllConnections'>;
  log?: (message: string) => void;
}

/**
 * Stops Toolscope in order, never taking longer than `cancelDeadlineMs` before the store closes:
 * 1. refuse new calls and end the event streams (open browser tabs no longer hold the server);
 * 2. cancel the calls in flight (`by: shutdown`) and wait until they are recorded as cancelled;
 * 3. flush and close the store.
 * Returns whether every call was recorded in time.
 */
export async function stopToolscope(ts: Toolscope, cancelDeadlineMs = 3_000): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), cancelDeadlineMs);
  });
  try {
    return await Promise.race([
      ts.stop(SHUTDOWN_REASON).then(
        () => true,
        (error: unknown) => {
          console.error('[toolscope] cancelling the calls in flight failed:', error);
          return false;
        },
      ),
      deadline,
    ]);
  } finally {
    clearTimeout(timer);
    ts.close();
  }
}

/**
 * Handles SIGTERM and SIGINT for the custom server (server/main.ts), which owns the process:
 * 1. the HTTP server stops accepting connections and closes its idle keep-alive ones;
 * 2. `stopToolscope` ends the event streams, cancels the calls in flight (their agents get the
 *    cancelled results), flushes and closes the store;
 * 3. after a moment for those responses to be written, the last connections are closed and the
 *    process exits. A hard deadline exits whatever happens.
 * A second signal is ignored: Ctrl-C reaches the process twice, from the terminal and from
 * start.mjs. Returns a function that removes the handlers.
 */
export function handleShutdownSignals(ts: Toolscope, options: ShutdownOptions = {}): () => void {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const log = options.log ?? ((message: string) => console.log(message));
  const hardDeadlineMs = options.hardDeadlineMs ?? 4_500;
  let started = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (started) return;
    started = true;
    const begun = Date.now();
    log(`[toolscope] ${signal}: stopping (calls in flight are cancelled)…`);
    const hard = setTimeout(() => {
      log(`[toolscope] still stopping after ${hardDeadlineMs} ms; exiting now`);
      exit(1);
    }, hardDeadlineMs);
    hard.unref?.();
    const server = options.server;
    // Not listening yet (a signal during start) is no reason to fail the rest of the stop.
    server?.close(() => {});
    server?.closeIdleConnections();
    void stopToolscope(ts, options.cancelDeadlineMs).then((clean) => {
      log(`[toolscope] stopped in ${Date.now() - begun} ms${clean ? '' : ' (some calls did not finish in time)'}`);
      // A moment for the responses of the cancelled calls to reach their agents.
      setTimeout(() => {
        clearTimeout(hard);
        server?.closeAllConnections();
        exit(clean ? 0 : 1);
      }, RESPONSE_GRACE_MS);
    });
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return () => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  };
}
