'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  createFaultRule,
  deleteFaultRule,
  disableAllFaultRules,
  FAULTS_KEY,
  type FaultRuleBody,
  type FaultRuleJson,
  type FaultRulesJson,
  fetchFaultRules,
  resetFaultRules,
  updateFaultRule,
  withoutRule,
  withRule,
} from '@/lib/ui/faults';

/** How often the rules are read again while a page showing them is visible (hit counters, expiry). */
export const FAULTS_POLL_MS = 5_000;

/**
 * The fault rules: one query shared by the navigation's indicator and the Faults page, read again
 * every `pollMs` while the tab is visible (TanStack pauses interval refetches in hidden tabs) and on
 * focus. `initial` (the server's snapshot) fills it when nothing is cached yet.
 */
export function useFaultRules({
  initial,
  renderedAt,
  pollMs = FAULTS_POLL_MS,
}: {
  initial?: FaultRulesJson;
  renderedAt?: number;
  pollMs?: number;
} = {}) {
  return useQuery<FaultRulesJson>({
    queryKey: FAULTS_KEY,
    queryFn: fetchFaultRules,
    initialData: initial,
    initialDataUpdatedAt: renderedAt,
    refetchInterval: pollMs,
    refetchOnWindowFocus: true,
  });
}

/**
 * The page's writes. Each answer updates the shared rules at once (so the indicator follows the
 * page), and every mutation, succeeded or not, reads the rules again.
 */
export function useFaultMutations() {
  const queryClient = useQueryClient();
  const settle = () => queryClient.invalidateQueries({ queryKey: FAULTS_KEY });
  const put = (rule: FaultRuleJson) =>
    queryClient.setQueryData<FaultRulesJson>(FAULTS_KEY, (list) =>
      list ? withRule(list, rule) : { faults: [rule], active: rule.active ? 1 : 0 },
    );

  const create = useMutation({
    mutationFn: (body: FaultRuleBody) => createFaultRule(body),
    onSuccess: put,
    onSettled: settle,
  });
  const update = useMutation({
    mutationFn: ({ id, body }: { id: string; body: FaultRuleBody }) => updateFaultRule(id, body),
    onSuccess: put,
    onSettled: settle,
  });
  const remove = useMutation({
    mutationFn: (id: string) => deleteFaultRule(id),
    onSuccess: (_answer, id) =>
      queryClient.setQueryData<FaultRulesJson>(FAULTS_KEY, (list) => (list ? withoutRule(list, id) : list)),
    onSettled: settle,
  });
  const disableAll = useMutation({
    mutationFn: disableAllFaultRules,
    onSuccess: () =>
      queryClient.setQueryData<FaultRulesJson>(FAULTS_KEY, (list) =>
        list ? { faults: list.faults.map((r) => ({ ...r, enabled: false, active: false })), active: 0 } : list,
      ),
    onSettled: settle,
  });
  const reset = useMutation({
    mutationFn: resetFaultRules,
    onSuccess: () => queryClient.setQueryData<FaultRulesJson>(FAULTS_KEY, { faults: [], active: 0 }),
    onSettled: settle,
  });
  return { create, update, remove, disableAll, reset };
}
