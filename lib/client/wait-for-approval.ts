import type { Trace } from './api-types';
import type { EventFilter, SubscribeOptions } from './subscribe-events';
import { CLIENT_ERROR_CODES, ToolscopeError } from './toolscope-error';

export interface WaitForApprovalOptions {
  signal?: AbortSignal;
  /** Give up (a `TIMEOUT` error) after this long; default: wait as long as the call waits. */
  timeoutMs?: number;
  /**
   * `finished` (default): resolve once the call has ended (approved and run, denied, expired), with
   * its outcome in the trace. `decided`: as soon as it no longer awaits a decision.
   */
  until?: 'decided' | 'finished';
}

interface Deps {
  getTrace(id: string, options: { signal?: AbortSignal }): Promise<Trace>;
  subscribe(
    filter: EventFilter,
    onEvent: (event: { event: string; data: unknown }) => void,
    options: SubscribeOptions,
  ): () => void;
}

const ENDED: ReadonlySet<string> = new Set(['succeeded', 'failed', 'denied', 'cancelled', 'interrupted']);

/**
 * Resolves with the trace of a call once it is decided or finished (see `until`).
 * 1. Follows the call's events and reads the trace on every (re)connection, so a decision made
 *    before the stream opened, or while it was down, is seen too.
 * 2. Reads the trace again on each event that may end the wait (at most one read in flight).
 * 3. Rejects with the API's error (a `NOT_FOUND` trace), `TIMEOUT`, `ABORTED`, or the stream's refusal.
 */
export function waitForApproval(deps: Deps, traceId: string, options: WaitForApprovalOptions = {}): Promise<Trace> {
  const until = options.until ?? 'finished';
  const done = (status: string) => (until === 'decided' ? status !== 'awaiting_approval' : ENDED.has(status));
  return new Promise<Trace>((resolve, reject) => {
    const reads = new AbortController();
    let settled = false;
    let reading = false;
    let again = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let unsubscribe = () => {};
    const end = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      unsubscribe();
      reads.abort();
      options.signal?.removeEventListener('abort', onAbort);
      outcome();
    };
    const fail = (error: unknown) => end(() => reject(error));
    const onAbort = () =>
      fail(new ToolscopeError(CLIENT_ERROR_CODES.ABORTED, `Waiting for ${traceId}: aborted`, 0, undefined));
    const read = async () => {
      if (reading) {
        again = true;
        return;
      }
      reading = true;
      try {
        do {
          again = false;
          const trace = await deps.getTrace(traceId, { signal: reads.signal });
          if (done(trace.status)) return end(() => resolve(trace));
        } while (again && !settled);
      } catch (error) {
        if (!settled) fail(error);
      } finally {
        reading = false;
      }
    };

    if (options.signal?.aborted) return onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.timeoutMs !== undefined) {
      const ms = options.timeoutMs;
      timer = setTimeout(
        () => fail(new ToolscopeError(CLIENT_ERROR_CODES.TIMEOUT, `${traceId} was not ${until} within ${ms} ms`, 0)),
        ms,
      );
    }
    unsubscribe = deps.subscribe(
      { trace: traceId },
      (event) => {
        const status = (event.data as { status?: unknown } | null)?.status;
        // An approval event, or a trace event whose status may end the wait.
        if (event.event === 'approval' || (typeof status === 'string' && done(status))) void read();
      },
      {
        onOpen: () => void read(),
        onError: (error, willRetry) => {
          if (!willRetry) fail(error);
        },
      },
    );
  });
}
