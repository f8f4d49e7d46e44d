import type { SqliteTraceStore } from '../db/sqlite-trace-store';
import type { StoredTrace } from '../db/trace-store';
import type { VaultError } from '../db/vault';
import { executionMs } from '../executor/approval-wait';
import { errorData } from '../executor/errors';
import { modelMessageContent } from '../executor/model-message';
import type { ApprovalRecord, TraceRecord, TraceStage } from '../executor/types';

/** Who a call ended at start-up is decided by: Toolscope itself. */
const TOOLSCOPE = 'toolscope';

/**
 * Ends call `stored`, left awaiting approval by a previous process, whose sealed arguments did not
 * open (`cause`): failed `VAULT_KEY_MISMATCH` at the permission stage, never run, its approval
 * decided `cancelled` by `toolscope` (so it leaves the queue), committed with its sealed values
 * kept (the key that sealed them opens them again). Returns the record written, or null when the
 * call was no longer pending.
 */
export function endUnopenedApproval(
  store: SqliteTraceStore,
  stored: StoredTrace,
  cause: VaultError,
  now: number,
): TraceRecord | null {
  const error = errorData(
    'VAULT_KEY_MISMATCH',
    `Toolscope could not open the arguments it sealed for this call (${cause.message}), so it cannot run and was not run.`,
    { stage: 'permission' },
  );
  const wallMs = Math.max(0, now - stored.createdAt);
  const { sessionSeq: _seq, imported: _imported, ...trace } = stored;
  const approval: ApprovalRecord = {
    ...(stored.approval ?? {
      rule: 'pending before a restart',
      requestedAt: stored.createdAt,
      expiresAt: null,
      ruleCreated: null,
    }),
    decision: 'cancelled',
    by: TOOLSCOPE,
    decidedAt: now,
    reason: error.message,
  };
  const stages = endedStages(stored.stages, wallMs, `${error.code}: ${error.message}`);
  const record: TraceRecord = {
    ...trace,
    rawArguments: '',
    rawEditedArguments: null,
    status: 'failed',
    error,
    finishedAt: stored.createdAt + wallMs,
    // Execution only: the wait for a decision is not latency.
    latencyMs: executionMs(wallMs, approval, stages),
    stages,
    modelMessage: modelMessageContent({ success: false, error }),
    approval,
  };
  return store.finishUnopened(record) ? record : null;
}

/** The stages of a call that waited at the permission stage and ended there: the rest skipped. */
function endedStages(stages: readonly TraceStage[], endMs: number, detail: string): TraceStage[] {
  const ended = stages.map((stage) =>
    stage.name === 'permission' && stage.status !== 'ok' && stage.status !== 'failed'
      ? { ...stage, status: 'failed' as const, durationMs: Math.max(0, endMs - stage.startedAt), detail }
      : stage,
  );
  if (!ended.some((stage) => stage.name === 'permission')) {
    ended.push({ name: 'permission', status: 'failed', startedAt: endMs, durationMs: 0, detail });
  }
  for (const name of ['execute', 'normalize'] as const) {
    if (!ended.some((stage) => stage.name === name)) {
      ended.push({ name, status: 'skipped', startedAt: endMs, durationMs: 0, detail: null });
    }
  }
  if (!ended.some((stage) => stage.name === 'trace')) {
    ended.push({ name: 'trace', status: 'ok', startedAt: endMs, durationMs: 0, detail: 'finalized' });
  }
  return ended;
}
