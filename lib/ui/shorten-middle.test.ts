import { describe, expect, it } from 'vitest';
import { shortenMiddle } from './shorten-middle';

describe('shortenMiddle', () => {
  it('leaves a text that fits as it is', () => {
    expect(shortenMiddle('write_file', 10)).toBe('write_file');
    expect(shortenMiddle('', 3)).toBe('');
  });

  it('keeps both ends of a longer one, the end the larger half', () => {
    expect(shortenMiddle('abcdefghij', 7)).toBe('abc…hij');
    expect(shortenMiddle('abcdefghij', 6)).toBe('ab…hij');
    const name = 'github__create_pull_request_review_comment';
    const short = shortenMiddle(name, 30);
    expect(short).toBe('github__create…_review_comment');
    expect(Array.from(short)).toHaveLength(30);
  });

  it('never splits a character outside the BMP, and handles tiny bounds', () => {
    expect(shortenMiddle('😀😀😀😀😀😀', 5)).toBe('😀😀…😀😀');
    expect(shortenMiddle('abc', 1)).toBe('…');
    expect(shortenMiddle('abc', 0)).toBe('');
  });
});
