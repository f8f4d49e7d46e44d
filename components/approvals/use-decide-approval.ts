'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  APPROVALS_KEY,
  type ApprovalQueue,
  DECIDE_KEY,
  type Decision,
  type DecisionError,
  type DecisionResult,
  postDecision,
} from '@/lib/ui/approvals';

export interface DecideVariables {
  traceId: string;
  tool: string;
  decision: Decision;
}

/**
 * A decision on a pending call as a mutation with an optimistic update: the call leaves the
 * queue at once, comes back (the snapshot restored) when the server refuses, and the queue is
 * refetched either way (not before: the live queue holds its refetches while a decision is in
 * flight, see `ApprovalsLive`). Every trace query of the call is refetched too.
 */
export function useDecideApproval(
  options: { onDecided?: (variables: DecideVariables, result: DecisionResult) => void } = {},
) {
  const queryClient = useQueryClient();
  return useMutation<DecisionResult, DecisionError, DecideVariables, { before?: ApprovalQueue }>({
    mutationKey: DECIDE_KEY,
    mutationFn: ({ traceId, decision }) => postDecision(traceId, decision),
    onMutate: async ({ traceId }) => {
      await queryClient.cancelQueries({ queryKey: APPROVALS_KEY });
      const before = queryClient.getQueryData<ApprovalQueue>(APPROVALS_KEY);
      if (before) {
        queryClient.setQueryData<ApprovalQueue>(APPROVALS_KEY, {
          ...before,
          approvals: before.approvals.filter((a) => a.trace_id !== traceId),
        });
      }
      return { before };
    },
    onError: (_error, _variables, context) => {
      if (context?.before) queryClient.setQueryData(APPROVALS_KEY, context.before);
    },
    onSuccess: (result, variables) => options.onDecided?.(variables, result),
    onSettled: (_result, _error, { traceId }) => {
      void queryClient.invalidateQueries({ queryKey: APPROVALS_KEY });
      void queryClient.invalidateQueries({ queryKey: ['trace', traceId] });
    },
  });
}
