import type { SummaryJson } from './summary-from-json';

/** How a pair was found (`matched_by`); null for a call left without a pair. */
export type PairMatchJson = 'replay_of' | 'same_original' | 'tool_call_id' | 'arguments';
export type PairVerdictJson = 'same' | 'changed' | 'pending' | 'only_in_a' | 'only_in_b';

/** One row of `GET /api/v1/sessions/:id/compare/:other`: a call of A beside its pair in B. */
export interface SessionPairJson {
  original: SummaryJson | null;
  replay: SummaryJson | null;
  matched_by: PairMatchJson | null;
  verdict: PairVerdictJson;
  outcome_changed: boolean;
  output_changed: boolean;
  ignored_count: number;
  ignored: { path: string; kind: 'added' | 'removed' | 'changed'; rule: string }[];
  compare_url: string | null;
}

export interface SessionComparisonJson {
  session_id: string;
  other_session_id: string;
  /** Calls paired; 0 for unrelated sessions. */
  shared: number;
  ignore_paths: { path: string; timestamps_only: boolean; source: 'default' | 'config' }[];
  pairs: SessionPairJson[];
}

/** What the "only changed" filter keeps: a changed pair, or a call without a pair. */
export const differs = (pair: SessionPairJson) =>
  pair.verdict === 'changed' || pair.verdict === 'only_in_a' || pair.verdict === 'only_in_b';

/** The pairs counted by verdict, and the volatile differences ignored over all of them. */
export function pairCounts(pairs: readonly SessionPairJson[]) {
  const counts = { same: 0, changed: 0, pending: 0, only_in_a: 0, only_in_b: 0, ignored: 0 };
  for (const pair of pairs) {
    counts[pair.verdict] += 1;
    counts.ignored += pair.ignored_count;
  }
  return counts;
}

/** How a pair was found, as the table says it. */
export const MATCHED_BY_LABEL: Record<PairMatchJson, string> = {
  replay_of: 'its replay',
  same_original: 'replays of one call',
  tool_call_id: 'same tool call id',
  arguments: 'same tool and arguments',
};
