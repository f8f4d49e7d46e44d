import type { ReactNode } from 'react';
import { describeEscaped, splitInvisible, type VisiblePiece } from '@/lib/ui/invisible-characters';

/** One invisible or control character, shown as its escape in a marked chip whose title says what it does. */
export function InvisibleMark({ piece }: { piece: Extract<VisiblePiece, { kind: 'escaped' }> }) {
  return (
    <mark
      data-testid="invisible-char"
      data-code={piece.code}
      title={describeEscaped(piece)}
      className="mx-px rounded-sm border border-red-400 bg-red-50 px-0.5 font-mono text-[0.92em] text-red-800 [unicode-bidi:isolate] dark:border-red-700 dark:bg-red-950/60 dark:text-red-200"
    >
      {piece.text}
    </mark>
  );
}

/**
 * Text with every invisible or control character (bidirectional overrides, zero-width characters,
 * control characters…) shown as a marked escape (`splitInvisible`), so what a reader sees is what
 * the text holds. `lines` keeps newlines and tabs of multi-line text.
 */
export function VisibleText({ text, lines = false }: { text: string; lines?: boolean }): ReactNode {
  const pieces = splitInvisible(text, { lines });
  if (pieces.length === 1 && pieces[0]!.kind === 'text') return text;
  let at = 0;
  return pieces.map((piece) => {
    const offset = at;
    at += piece.kind === 'text' ? piece.text.length : piece.char.length;
    return piece.kind === 'text' ? piece.text : <InvisibleMark key={offset} piece={piece} />;
  });
}
