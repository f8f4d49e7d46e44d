import { Lock } from 'lucide-react';
import type { ReactNode } from 'react';
import { splitMarks } from '@/lib/ui/text-marks';
import { VisibleText } from '../visible-text';

/** `[REDACTED]` inside a string or a text: a styled mark with a lock, never mistaken for data. */
export function RedactedMark({ text = '[REDACTED]' }: { text?: string }) {
  return (
    <mark
      data-testid="redacted-mark"
      title="A secret was redacted here before the text was stored"
      className="inline-flex items-center gap-0.5 rounded border border-dashed border-amber-500 bg-amber-50 px-0.5 align-baseline text-amber-900 dark:bg-amber-950/60 dark:text-amber-200"
    >
      <Lock size={10} aria-hidden className="shrink-0" />
      {text}
    </mark>
  );
}

/** The executor's head-and-tail truncation marker, highlighted so the cut is seen. */
export function TruncationMark({ text }: { text: string }) {
  return (
    <mark
      data-testid="truncation-marker"
      title="Toolscope cut the text here; the counts say how much"
      className="rounded bg-amber-200 px-0.5 text-amber-950 dark:bg-amber-800 dark:text-amber-50"
    >
      {text}
    </mark>
  );
}

/**
 * Text with its redactions and truncation markers marked, and its invisible and control characters
 * shown escaped (newlines and tabs kept).
 */
export function MarkedText({ text, keyPrefix = '' }: { text: string; keyPrefix?: string }): ReactNode {
  const pieces = splitMarks(text);
  if (pieces.length === 1 && pieces[0]!.kind === 'text') return <VisibleText text={text} lines />;
  return pieces.map((piece, index) => {
    const key = `${keyPrefix}${index}`;
    if (piece.kind === 'redacted') return <RedactedMark key={key} />;
    if (piece.kind === 'truncation') return <TruncationMark key={key} text={piece.text} />;
    return (
      <span key={key}>
        <VisibleText text={piece.text} lines />
      </span>
    );
  });
}
