import { v7 as uuidv7 } from 'uuid';
import type { SealedArguments, TraceStore } from '../db/trace-store';
import { isVaultError, VaultError } from '../db/vault';
import type { ExecutionContext, ToolCall, ToolResult } from '../executor/types';
import { REPLAY_ACTOR, vaultKeyMismatchMessage } from './plan-replay';
import { sessionCalls } from './session-calls';

/** Calls that ran in one batch, to run again in one batch. */
export interface ReplayBatch {
  calls: ToolCall[];
  /** Where each call's result goes in the session's results (its place in the recorded order). */
  positions: number[];
}

export interface SessionReplayPlan {
  /** The new session the replay records into. */
  sessionId: string;
  /** In the order the first call of each began. */
  batches: ReplayBatch[];
  /** Calls in all. */
  size: number;
  /** Runs one call of the plan with its own context (the trace it replays) over the batch's. */
  execute(
    run: (call: ToolCall, ctx: ExecutionContext) => Promise<ToolResult>,
  ): (call: ToolCall, ctx: ExecutionContext) => Promise<ToolResult>;
}

/**
 * Plans the replay of session `sessionId` into a new session; null when it has no calls.
 * 1. The session's calls in the order they began (`session_seq`), each from its sealed raw
 *    arguments, as the model sent them.
 * 2. Calls that shared a `batch_id` (one request) form one batch, placed where its first call
 *    began; a call without one is a batch of its own. Batches run one after the other.
 * 3. Each call is recorded as a replay of its original (actor `replay`).
 * Throws `SessionTooLargeError` past MAX_SESSION_CALLS, and `VaultError` (nothing runs) when a
 * call's sealed arguments do not open.
 */
export function planSessionReplay(store: TraceStore, sessionId: string): SessionReplayPlan | null {
  const recorded = sessionCalls(store, sessionId);
  if (recorded.length === 0) return null;
  const batches: ReplayBatch[] = [];
  const byBatchId = new Map<string, ReplayBatch>();
  const replayOf = new Map<ToolCall, string>();
  let size = 0;
  for (const summary of recorded) {
    const trace = store.get(summary.id);
    const sealed = openNamingCall(store, summary.id);
    if (!trace || !sealed) continue; // deleted meanwhile
    const call: ToolCall = { name: trace.tool, arguments: sealed.rawArguments };
    replayOf.set(call, trace.id);
    let batch = trace.batchId === null ? undefined : byBatchId.get(trace.batchId);
    if (!batch) {
      batch = { calls: [], positions: [] };
      batches.push(batch);
      if (trace.batchId !== null) byBatchId.set(trace.batchId, batch);
    }
    batch.calls.push(call);
    batch.positions.push(size++);
  }
  if (size === 0) return null;
  return {
    sessionId: `replay-${uuidv7()}`,
    batches,
    size,
    execute: (run) => (call, ctx) => run(call, { ...ctx, actor: REPLAY_ACTOR, replayOf: replayOf.get(call) }),
  };
}

/** The call's sealed arguments; a `VaultError` naming the call when they do not open. */
function openNamingCall(store: TraceStore, id: string): SealedArguments | null {
  try {
    return store.openSealedArguments(id);
  } catch (error) {
    if (!isVaultError(error)) throw error;
    throw new VaultError(vaultKeyMismatchMessage(id, error.message), error.code, { cause: error });
  }
}
