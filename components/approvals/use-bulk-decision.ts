'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { APPROVALS_KEY, type ApprovalQueue, DECIDE_KEY, type DecisionError } from '@/lib/ui/approvals';
import { NOT_REACHABLE, UNREACHABLE } from '@/lib/ui/unreachable';

/** The body of `POST /api/v1/approvals/bulk`: one decision for one batch or one session. */
export type BulkDecision = { decision: 'approve' | 'deny'; reason?: string } & (
  | { batch_id: string }
  | { session_id: string }
);

/** What the server decided, and what it skipped and why (a call made with this key, decided meanwhile). */
export interface BulkResult {
  decided: string[];
  skipped: { id: string; code: string; message: string }[];
}

export interface BulkVariables {
  body: BulkDecision;
  /** The calls the page expects it to take in: they leave the queue at once. */
  traceIds: string[];
}

function bulkError(status: number, code: string, message: string): DecisionError {
  return Object.assign(new Error(message), { code, status, issues: [] });
}

/** `POST /api/v1/approvals/bulk`; rejects with a `DecisionError` when the server refuses it or is not reached. */
export async function postBulkDecision(body: BulkDecision): Promise<BulkResult> {
  let response: Response;
  try {
    response = await fetch('/api/v1/approvals/bulk', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch (error) {
    throw Object.assign(bulkError(0, UNREACHABLE, NOT_REACHABLE), { cause: error });
  }
  const json = (await response.json().catch(() => null)) as
    | (BulkResult & { error?: { code?: string; message?: string } })
    | null;
  if (!response.ok || !json) {
    const error = json?.error;
    throw bulkError(response.status, error?.code ?? `HTTP_${response.status}`, error?.message ?? response.statusText);
  }
  return { decided: json.decided, skipped: json.skipped };
}

/**
 * A bulk decision as a mutation, optimistic like a single one (`useDecideApproval`): the calls it
 * takes in leave the queue at once; the queue is refetched once it is settled, which brings back
 * the calls the server skipped (and all of them when it refused).
 */
export function useBulkDecision() {
  const queryClient = useQueryClient();
  return useMutation<BulkResult, DecisionError, BulkVariables, { before?: ApprovalQueue }>({
    mutationKey: DECIDE_KEY,
    mutationFn: ({ body }) => postBulkDecision(body),
    onMutate: async ({ traceIds }) => {
      await queryClient.cancelQueries({ queryKey: APPROVALS_KEY });
      const before = queryClient.getQueryData<ApprovalQueue>(APPROVALS_KEY);
      if (before) {
        const leaving = new Set(traceIds);
        queryClient.setQueryData<ApprovalQueue>(APPROVALS_KEY, {
          ...before,
          approvals: before.approvals.filter((a) => !leaving.has(a.trace_id)),
        });
      }
      return { before };
    },
    onError: (_error, _variables, context) => {
      if (context?.before) queryClient.setQueryData(APPROVALS_KEY, context.before);
    },
    onSettled: (_result, _error, { traceIds }) => {
      void queryClient.invalidateQueries({ queryKey: APPROVALS_KEY });
      for (const traceId of traceIds) void queryClient.invalidateQueries({ queryKey: ['trace', traceId] });
    },
  });
}
