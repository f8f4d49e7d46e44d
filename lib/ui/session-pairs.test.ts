import { describe, expect, it } from 'vitest';
import { differs, pairCounts, type SessionPairJson } from './session-pairs';

const pair = (verdict: SessionPairJson['verdict'], ignored = 0): SessionPairJson => ({
  original: null,
  replay: null,
  matched_by: null,
  verdict,
  outcome_changed: false,
  output_changed: false,
  ignored_count: ignored,
  ignored: [],
  compare_url: null,
});

describe('pairCounts and differs', () => {
  it('counts pairs by verdict and the volatile differences ignored over all', () => {
    const pairs = [
      pair('same', 2),
      pair('changed', 1),
      pair('pending'),
      pair('only_in_a'),
      pair('only_in_b'),
      pair('same'),
    ];
    expect(pairCounts(pairs)).toEqual({ same: 2, changed: 1, pending: 1, only_in_a: 1, only_in_b: 1, ignored: 3 });
  });

  it('keeps changed pairs and calls without a pair under "only changed", never pending or same ones', () => {
    expect(['same', 'changed', 'pending', 'only_in_a', 'only_in_b'].map((v) => differs(pair(v as never)))).toEqual([
      false,
      true,
      false,
      true,
      true,
    ]);
  });
});
