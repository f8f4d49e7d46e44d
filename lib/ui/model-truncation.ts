import type { ModelTruncation } from '../executor/types';
import { formatCount } from './format';

/**
 * How much of the output the model got, as a sentence.
 * @example describeModelTruncation({ headChars: 11_200, tailChars: 4_800, totalChars: 2_100_000 })
 * // 'The model got the first 11.2k and the last 4.8k characters of 2.1M (0.8%).'
 */
export function describeModelTruncation(t: ModelTruncation): string {
  const got = t.headChars + t.tailChars;
  const share = t.totalChars > 0 ? (got / t.totalChars) * 100 : 100;
  const percent = share < 0.1 ? '<0.1%' : `${share < 10 ? share.toFixed(1) : Math.round(share)}%`;
  const parts =
    t.tailChars > 0
      ? `the first ${formatCount(t.headChars)} and the last ${formatCount(t.tailChars)} characters`
      : `the first ${formatCount(t.headChars)} characters`;
  const cut = t.tailChars > 0 ? 'the middle was replaced by a marker' : 'the rest was cut';
  return `The model got ${parts} of ${formatCount(t.totalChars)} (${percent}); ${cut}.`;
}
