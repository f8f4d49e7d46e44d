'use client';

import { ChevronDown, ChevronUp, Download, Search, WrapText } from 'lucide-react';
import { type ReactNode, useEffect, useMemo, useRef, useState } from 'react';
import { formatBytes } from '@/lib/ui/format';
import { findMatches, lineStarts } from '@/lib/ui/text-marks';
import { CopyButton } from '../copy-button';
import { VisibleText } from '../visible-text';
import { MarkedText } from './text-marks';

/** Characters rendered before "Show all": keeps a 1 MiB output from freezing the page. */
const PREVIEW_CHARS = 32_000;
/** Find stops counting here; beyond it the count reads "10,000+". */
const MAX_MATCHES = 10_000;

const tool =
  'inline-flex h-6 items-center gap-1 rounded border border-line px-1.5 text-xs text-fg-muted hover:bg-muted hover:text-fg disabled:opacity-50';

/** Saves text as a .txt download, built in the browser (nothing goes back to the server). */
function downloadText(text: string, name: string) {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/plain;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** One line: find matches highlighted (the current one stronger), redactions and truncation marked. */
function Line({
  text,
  start,
  matches,
  from,
  length,
  current,
}: {
  text: string;
  start: number;
  matches: number[];
  /** Index of the first match at or after `start`. */
  from: number;
  length: number;
  current: number;
}) {
  const parts: ReactNode[] = [];
  let at = 0;
  for (let m = from; m < matches.length; m++) {
    const offset = matches[m]! - start;
    if (offset >= text.length) break;
    if (offset > at) parts.push(<MarkedText key={`t${at}`} keyPrefix={`${at}:`} text={text.slice(at, offset)} />);
    parts.push(
      <mark
        key={`m${offset}`}
        data-match
        data-current-match={m === current || undefined}
        className={
          m === current
            ? 'rounded-sm bg-orange-400 text-black outline outline-1 outline-orange-600'
            : 'rounded-sm bg-yellow-200 text-black dark:bg-yellow-600/70 dark:text-white'
        }
      >
        <VisibleText text={text.slice(offset, offset + length)} lines />
      </mark>,
    );
    at = offset + length;
  }
  if (at < text.length) parts.push(<MarkedText key={`t${at}`} keyPrefix={`${at}:`} text={text.slice(at)} />);
  return <>{parts}</>;
}

/**
 * Plain text (output, stdout, stderr, the model's message) with line numbers, find (Enter /
 * Shift+Enter for next / previous, matches highlighted and counted over the whole text), a wrap
 * toggle, download as .txt and copy. Redactions and truncation markers are marked. Only the first
 * 32,000 characters render until "Show all" (or until find goes further), so 1 MiB stays fast.
 */
export function LargeText({
  text,
  empty = 'empty',
  testId,
  downloadName = 'text.txt',
}: {
  text: string | null;
  empty?: string;
  testId?: string;
  /** File name of the download. */
  downloadName?: string;
}) {
  const [limit, setLimit] = useState(PREVIEW_CHARS);
  const [wrap, setWrap] = useState(true);
  const [query, setQuery] = useState('');
  const [current, setCurrent] = useState(0);
  const body = useRef<HTMLDivElement>(null);
  const source = text ?? '';
  const lower = useMemo(() => source.toLowerCase(), [source]);
  const matches = useMemo(() => findMatches(lower, query, MAX_MATCHES), [lower, query]);
  const bytes = useMemo(() => new TextEncoder().encode(source).length, [source]);

  // Find may jump past what is shown: show up to the current match.
  const target = matches[current];
  const needed = target === undefined ? 0 : target + query.length;
  const shownLimit = Math.max(limit, needed);
  const lineEnd = shownLimit >= source.length ? source.length : source.indexOf('\n', shownLimit);
  const shownEnd = lineEnd < 0 ? source.length : lineEnd;
  const capped = shownEnd < source.length;
  const shown = source.slice(0, shownEnd);
  const starts = useMemo(() => lineStarts(shown), [shown]);
  const totalLines = useMemo(() => (capped ? null : starts.length), [capped, starts]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll when the current match changes
  useEffect(() => {
    body.current?.querySelector('[data-current-match]')?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [current, query]);

  if (text === null || text === '') {
    return (
      <p className="p-3 text-fg-muted italic" data-testid={testId}>
        {empty}
      </p>
    );
  }

  const step = (delta: number) => {
    if (matches.length === 0) return;
    setCurrent((c) => (c + delta + matches.length) % matches.length);
  };
  const gutter = `calc(${String(starts.length).length}ch + 1rem)`;
  let matchIndex = 0;

  return (
    <div data-testid={testId} data-large-text>
      <div className="flex flex-wrap items-center gap-1.5 border-b border-line px-2 py-1">
        <span className="relative flex items-center">
          <Search size={12} className="pointer-events-none absolute left-1.5 text-fg-muted" aria-hidden />
          <input
            type="search"
            value={query}
            onChange={(event) => {
              setQuery(event.target.value);
              setCurrent(0);
            }}
            onKeyDown={(event) => {
              if (event.key === 'Enter') {
                event.preventDefault();
                step(event.shiftKey ? -1 : 1);
              } else if (event.key === 'Escape') {
                setQuery('');
                event.currentTarget.blur();
              }
            }}
            placeholder="Find"
            aria-label="Find in this text"
            data-testid="find-input"
            className="h-6 w-36 rounded border border-line bg-bg pl-5 pr-1 text-xs placeholder:text-fg-muted sm:w-44"
          />
        </span>
        <span className="min-w-14 text-[11px] tabular-nums text-fg-muted" aria-live="polite" data-testid="find-count">
          {query
            ? matches.length === 0
              ? 'no match'
              : `${current + 1} / ${matches.length >= MAX_MATCHES ? `${MAX_MATCHES.toLocaleString('en-US')}+` : matches.length.toLocaleString('en-US')}`
            : ''}
        </span>
        <button
          type="button"
          className={tool}
          onClick={() => step(-1)}
          disabled={matches.length === 0}
          aria-label="Previous match (Shift+Enter)"
          title="Previous match (Shift+Enter)"
        >
          <ChevronUp size={12} aria-hidden />
        </button>
        <button
          type="button"
          className={tool}
          onClick={() => step(1)}
          disabled={matches.length === 0}
          aria-label="Next match (Enter)"
          title="Next match (Enter)"
          data-testid="find-next"
        >
          <ChevronDown size={12} aria-hidden />
        </button>
        <span className="ml-auto flex items-center gap-1.5">
          <span className="text-[11px] tabular-nums text-fg-muted" data-testid="text-size">
            {formatBytes(bytes)}
            {totalLines !== null && ` · ${totalLines.toLocaleString('en-US')} line${totalLines === 1 ? '' : 's'}`}
          </span>
          <button
            type="button"
            className={`${tool} aria-pressed:bg-muted aria-pressed:text-fg`}
            aria-pressed={wrap}
            onClick={() => setWrap(!wrap)}
            title="Wrap long lines"
            data-testid="wrap-toggle"
          >
            <WrapText size={12} aria-hidden />
            Wrap
          </button>
          <button
            type="button"
            className={tool}
            onClick={() => downloadText(source, downloadName)}
            title={`Download as ${downloadName}`}
            data-testid="download-text"
          >
            <Download size={12} aria-hidden />
            <span className="hidden sm:inline">Download</span>
          </button>
          <CopyButton text={source} label="Copy" compact />
        </span>
      </div>
      <div
        ref={body}
        className={`max-h-[32rem] overflow-auto py-1 font-mono text-[12px] leading-5 ${wrap ? '' : 'whitespace-pre'}`}
        data-testid="text-body"
      >
        {starts.map((start, index) => {
          const next = starts[index + 1];
          const lineText = shown.slice(start, next === undefined ? shown.length : next - 1);
          while (matchIndex < matches.length && matches[matchIndex]! < start) matchIndex++;
          return (
            <div
              key={start}
              className="flex [contain-intrinsic-size:auto_20px] [content-visibility:auto] hover:bg-subtle"
            >
              <span
                className="mr-2 shrink-0 select-none border-r border-line pr-2 text-right text-fg-muted/70 tabular-nums"
                style={{ width: gutter }}
                aria-hidden
              >
                {index + 1}
              </span>
              <span
                className={`min-w-0 flex-1 pr-3 ${wrap ? 'whitespace-pre-wrap [overflow-wrap:anywhere]' : 'whitespace-pre'}`}
              >
                <Line
                  text={lineText}
                  start={start}
                  matches={matches}
                  from={matchIndex}
                  length={query.length}
                  current={current}
                />
              </span>
            </div>
          );
        })}
      </div>
      {capped && (
        <div className="flex flex-wrap items-center gap-2 border-t border-line px-3 py-1.5 text-xs text-fg-muted">
          Showing the first {shownEnd.toLocaleString('en-US')} of {source.length.toLocaleString('en-US')} characters
          (find searches all of it).
          <button
            type="button"
            className="rounded border border-line px-1.5 py-0.5 hover:bg-muted"
            onClick={() => setLimit(source.length)}
            data-testid="show-all"
          >
            Show all
          </button>
        </div>
      )}
    </div>
  );
}
