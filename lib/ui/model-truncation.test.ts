import { describe, expect, it } from 'vitest';
import { describeModelTruncation } from './model-truncation';

describe('describeModelTruncation', () => {
  it('says how much of the output the model got', () => {
    expect(describeModelTruncation({ headChars: 11_200, tailChars: 4_800, totalChars: 2_100_000 })).toBe(
      'The model got the first 11.2k and the last 4.8k characters of 2.1M (0.8%); the middle was replaced by a marker.',
    );
    expect(describeModelTruncation({ headChars: 8192, tailChars: 0, totalChars: 20_000 })).toBe(
      'The model got the first 8.19k characters of 20k (41%); the rest was cut.',
    );
  });
});
