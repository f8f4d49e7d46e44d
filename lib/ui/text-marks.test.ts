import { describe, expect, it } from 'vitest';
import { escapeJsonString, findMatches, lineStarts, splitMarks } from './text-marks';

describe('splitMarks', () => {
  it('tags redactions and truncation markers', () => {
    expect(splitMarks('token=[REDACTED]&x=1 …[truncated 10 of 20 characters]… end')).toEqual([
      { kind: 'text', text: 'token=' },
      { kind: 'redacted', text: '[REDACTED]' },
      { kind: 'text', text: '&x=1 ' },
      { kind: 'truncation', text: '…[truncated 10 of 20 characters]…' },
      { kind: 'text', text: ' end' },
    ]);
    expect(splitMarks('plain')).toEqual([{ kind: 'text', text: 'plain' }]);
  });
});

describe('find in text', () => {
  it('finds case-insensitive matches, bounded', () => {
    const text = 'Error: x\nerror again\nERROR';
    expect(findMatches(text.toLowerCase(), 'ERROR')).toEqual([0, 9, 21]);
    expect(findMatches(text.toLowerCase(), 'error', 2)).toEqual([0, 9]);
    expect(findMatches('aaaa', 'aa')).toEqual([0, 2]);
    expect(findMatches('abc', '')).toEqual([]);
  });
  it('indexes line starts', () => {
    expect(lineStarts('a\nbc\n\nd')).toEqual([0, 2, 5, 6]);
    expect(lineStarts('a\nb\nc', 2)).toEqual([0, 2]);
  });
});

describe('escapeJsonString', () => {
  it('shows quotes, newlines, tabs and control characters escaped', () => {
    expect(escapeJsonString('say "hi"\n\tthen\u0007')).toBe('say \\"hi\\"\\n\\tthen\\u0007');
    expect(escapeJsonString('back\\slash')).toBe('back\\\\slash');
  });
});
