import type { AssistantMessageJson } from '../calls/assistant-message';
import type { PendingApprovalJson } from './approvals';

/** The pending calls of one request (one batch), as the approvals page shows them together. */
export interface ApprovalGroup {
  /** React's key: the batch id, or the call's trace id for a call of no batch. */
  key: string;
  batchId: string | null;
  sessionId: string | null;
  /** What the model said with the request: why these calls are asked for. */
  message: AssistantMessageJson | null;
  /** Oldest first. */
  calls: PendingApprovalJson[];
  /** Calls waiting in the group's session in all, this group's included; 0 without a session. */
  sessionPending: number;
}

/**
 * The queue grouped by batch: each group where its oldest call stands, its calls oldest first.
 * A call without a batch id (a server before batches) is a group of its own.
 * @example groupApprovals(queue).flatMap((group) => group.calls) // the order the page shows
 */
export function groupApprovals(approvals: readonly PendingApprovalJson[]): ApprovalGroup[] {
  const groups: ApprovalGroup[] = [];
  const byBatch = new Map<string, ApprovalGroup>();
  const perSession = new Map<string, number>();
  for (const call of approvals) {
    if (call.session_id !== null) perSession.set(call.session_id, (perSession.get(call.session_id) ?? 0) + 1);
    const batchId = call.batch_id ?? null;
    const known = batchId === null ? undefined : byBatch.get(batchId);
    if (known) {
      known.calls.push(call);
      known.message ??= call.assistant_message ?? null;
      continue;
    }
    const group: ApprovalGroup = {
      key: batchId ?? call.trace_id,
      batchId,
      sessionId: call.session_id,
      message: call.assistant_message ?? null,
      calls: [call],
      sessionPending: 0,
    };
    groups.push(group);
    if (batchId !== null) byBatch.set(batchId, group);
  }
  for (const group of groups)
    group.sessionPending = group.sessionId === null ? 0 : (perSession.get(group.sessionId) ?? 0);
  return groups;
}

/** What a bulk decision from a group may take in: its batch (2 calls or more) and/or its session (more than that). */
export function bulkScopes(group: ApprovalGroup): { batch: number; session: number } {
  const batch = group.batchId !== null && group.calls.length >= 2 ? group.calls.length : 0;
  const session = group.sessionId !== null && group.sessionPending > Math.max(batch, 1) ? group.sessionPending : 0;
  return { batch, session };
}
