import { diffJson, diffLines } from 'diff';
import { describe, expect, it } from 'vitest';
import { countChanges, type DiffLine, diffLinesOf, foldUnchanged, splitRows } from './diff-rows';

const text = (lines: (DiffLine | { kind: 'skip'; count: number })[]) =>
  lines.map((l) => (l.kind === 'skip' ? `… ${l.count}` : `${l.kind[0]} ${l.text}`));

describe('diffLinesOf', () => {
  it('numbers the lines on the sides they belong to', () => {
    const lines = diffLinesOf(diffLines('a\nb\nc\n', 'a\nB\nc\nd\n'));
    expect(lines).toEqual([
      { kind: 'same', text: 'a', oldNo: 1, newNo: 1 },
      { kind: 'removed', text: 'b', oldNo: 2, newNo: null },
      { kind: 'added', text: 'B', oldNo: null, newNo: 2 },
      { kind: 'same', text: 'c', oldNo: 3, newNo: 3 },
      { kind: 'added', text: 'd', oldNo: null, newNo: 4 },
    ]);
    expect(countChanges(lines)).toEqual({ added: 2, removed: 1 });
  });

  it('reads a JSON diff too', () => {
    const lines = diffLinesOf(diffJson({ expression: '2+2' }, { expression: '6*7' }));
    expect(text(lines)).toEqual(['s {', 'r   "expression": "2+2"', 'a   "expression": "6*7"', 's }']);
  });
});

describe('foldUnchanged', () => {
  it('keeps the context around a change and folds the rest', () => {
    const before = Array.from({ length: 20 }, (_, i) => `line ${i}`);
    const after = before.map((l, i) => (i === 10 ? 'changed' : l));
    const folded = foldUnchanged(diffLinesOf(diffLines(before.join('\n'), after.join('\n'))), 2);
    expect(text(folded)).toEqual([
      '… 8',
      's line 8',
      's line 9',
      'r line 10',
      'a changed',
      's line 11',
      's line 12',
      '… 7',
    ]);
  });

  it('does not fold a run that is hardly longer than its context', () => {
    const lines = diffLinesOf(diffLines('a\nb\nc\nd\n', 'a\nb\nc\nD\n'));
    expect(text(foldUnchanged(lines, 2))).toEqual(['s a', 's b', 's c', 'r d', 'a D']);
  });
});

describe('splitRows', () => {
  it('puts a removed run beside the added run that replaced it', () => {
    const rows = splitRows(diffLinesOf(diffLines('a\nb\nc\nz\n', 'a\nB\nz\n')));
    expect(rows.map((r) => ('count' in r ? '…' : `${r.left?.text ?? '·'} | ${r.right?.text ?? '·'}`))).toEqual([
      'a | a',
      'b | B',
      'c | ·',
      'z | z',
    ]);
  });
});
