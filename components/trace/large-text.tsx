'use client';

import { useState } from 'react';
import { formatBytes } from '@/lib/ui/format';
import { CopyButton } from '../copy-button';

/** Characters rendered before "Show all": keeps a 1 MiB output from freezing the page. */
const PREVIEW_CHARS = 32_000;
const MARKER = /…\[truncated \d+ of \d+ characters\]…/g;

/** Wraps the executor's head-and-tail truncation markers in <mark> so they are seen. */
function withMarkers(text: string) {
  const parts: React.ReactNode[] = [];
  let last = 0;
  for (const match of text.matchAll(MARKER)) {
    const at = match.index ?? 0;
    if (at > last) parts.push(text.slice(last, at));
    parts.push(
      <mark
        key={at}
        data-testid="truncation-marker"
        className="rounded bg-amber-200 px-0.5 text-amber-950 dark:bg-amber-800 dark:text-amber-50"
      >
        {match[0]}
      </mark>,
    );
    last = at + match[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return parts;
}

/**
 * Plain text (output, stdout, stderr, the model's message) in a scrolling <pre>: only the first
 * 32,000 characters until "Show all", truncation markers highlighted, a copy button.
 */
export function LargeText({ text, empty = 'empty', testId }: { text: string | null; empty?: string; testId?: string }) {
  const [all, setAll] = useState(false);
  if (text === null || text === '') {
    return (
      <p className="p-3 text-fg-muted italic" data-testid={testId}>
        {empty}
      </p>
    );
  }
  const capped = !all && text.length > PREVIEW_CHARS;
  const shown = capped ? text.slice(0, PREVIEW_CHARS) : text;
  const bytes = new TextEncoder().encode(text).length;
  return (
    <div className="relative" data-testid={testId}>
      <div className="absolute right-2 top-2 z-10 flex items-center gap-2">
        <span className="text-[11px] text-fg-muted">{formatBytes(bytes)}</span>
        <CopyButton text={text} label="Copy" compact />
      </div>
      <pre className="max-h-[32rem] overflow-auto whitespace-pre-wrap [overflow-wrap:anywhere] p-3 pr-24 font-mono text-[12px] leading-5">
        {withMarkers(shown)}
      </pre>
      {capped && (
        <div className="flex items-center gap-2 border-t border-line px-3 py-1.5 text-xs text-fg-muted">
          Showing the first {PREVIEW_CHARS.toLocaleString('en-US')} of {text.length.toLocaleString('en-US')} characters.
          <button
            type="button"
            className="rounded border border-line px-1.5 py-0.5 hover:bg-muted"
            onClick={() => setAll(true)}
            data-testid="show-all"
          >
            Show all
          </button>
        </div>
      )}
    </div>
  );
}
