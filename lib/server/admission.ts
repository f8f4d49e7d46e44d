import type { TraceStore } from '../db/trace-store';
import type { Executor } from '../executor/executor';

/**
 * The executor as the rest of Toolscope sees it: the trace store admits every call before it
 * starts (`TraceStore.admit`) — the one check for every way a call comes in (the API, replays,
 * MCP, the playground, approvals taken up at start). A refused call never starts: its promise
 * rejects with the store's `StoreUnavailableError`, which the API answers 503 STORE_UNAVAILABLE
 * with `Retry-After`. A batch is admitted once, whole, before any of its calls runs.
 */
export function admittingExecutor(executor: Executor, store: Pick<TraceStore, 'admit'>): Executor {
  return {
    ...executor,
    execute(call, ctx) {
      try {
        store.admit();
      } catch (error) {
        return Promise.reject(error);
      }
      return executor.execute(call, ctx);
    },
    executeBatch(calls, options, ctx) {
      try {
        store.admit();
      } catch (error) {
        return Promise.reject(error);
      }
      return executor.executeBatch(calls, options, ctx);
    },
  };
}
