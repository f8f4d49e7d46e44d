'use client';

import { memo } from 'react';
import type { BoundedText, CallPreview, FileChange, PreviewDiffLine } from '@/lib/executor/call-preview';
import { escapeInvisible } from '@/lib/ui/invisible-characters';
import { VisibleText } from '../visible-text';

type FilePreview = Extract<CallPreview, { kind: 'file' }>;

const frame = 'rounded border border-line bg-subtle/50 px-2 py-1 font-mono text-[12px] leading-4';
/** The card's preview stays a few lines high; the details show it whole. */
const heights = { compact: 'max-h-[3.5rem]', full: 'max-h-96' } as const;

function Omitted({ text }: { text: BoundedText }) {
  if (text.omitted === 0) return null;
  return (
    <span className="block text-fg-muted italic">… {text.omitted.toLocaleString('en')} more characters not shown</span>
  );
}

function DiffRow({ line }: { line: PreviewDiffLine }) {
  if (line.kind === 'skip') {
    return (
      <div className="text-fg-muted italic" data-diff="skip">
        ⋯ {line.count} unchanged line{line.count === 1 ? '' : 's'}
      </div>
    );
  }
  const tone =
    line.kind === 'added'
      ? 'bg-emerald-50 text-emerald-900 dark:bg-emerald-950/50 dark:text-emerald-100'
      : line.kind === 'removed'
        ? 'bg-red-50 text-red-900 dark:bg-red-950/50 dark:text-red-100'
        : '';
  return (
    <div className={`flex ${tone}`} data-diff={line.kind}>
      <span className="w-8 shrink-0 select-none pr-1 text-right text-fg-muted">{line.newNo ?? line.oldNo}</span>
      <span className="w-3 shrink-0 select-none" aria-hidden>
        {line.kind === 'added' ? '+' : line.kind === 'removed' ? '−' : ' '}
      </span>
      <span className="sr-only">{line.kind === 'same' ? '' : `${line.kind}: `}</span>
      <span className="min-w-0 whitespace-pre-wrap break-all">
        <VisibleText text={line.text} />
      </span>
    </div>
  );
}

/** What the write changes, in a few words: `new file`, `+2 −1`, `unchanged`, `not compared: …`. */
function ChangeBadge({ change }: { change: FileChange | null }) {
  if (!change) return null;
  const [text, tone] =
    change.kind === 'new'
      ? ['new file', 'border-emerald-400 text-emerald-800 dark:border-emerald-700 dark:text-emerald-300']
      : change.kind === 'same'
        ? ['unchanged: same content as on disk', 'border-line text-fg-muted']
        : change.kind === 'diff'
          ? [
              change.lines.length === 0 ? 'only the final newline changes' : `+${change.added} −${change.removed}`,
              'border-blue-300 text-blue-800 dark:border-blue-800 dark:text-blue-300',
            ]
          : [
              `not compared: ${change.reason}`,
              'border-amber-300 text-amber-800 dark:border-amber-800 dark:text-amber-300',
            ];
  return (
    <span
      className={`rounded border px-1 font-sans text-[11px] ${tone}`}
      data-testid="file-change"
      data-change={change.kind}
    >
      {text}
    </span>
  );
}

/** The new content, numbered; a diff against the disk when there is one. */
function FileBody({ preview }: { preview: FilePreview }) {
  const { change } = preview;
  if (change?.kind === 'diff' && change.lines.length > 0) {
    return (
      <div data-testid="file-diff">
        {change.lines.map((line, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the lines of one diff, never reordered
          <DiffRow key={index} line={line} />
        ))}
        {change.omitted > 0 && <span className="block text-fg-muted italic">… {change.omitted} more diff lines</span>}
      </div>
    );
  }
  const lines = preview.content.text.replace(/\n$/, '').split('\n');
  return (
    <div data-testid="file-content">
      {preview.content.text === '' ? (
        <span className="text-fg-muted italic">(empty file)</span>
      ) : (
        lines.map((text, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the lines of one text, never reordered
          <DiffRow key={index} line={{ kind: 'same', text, oldNo: null, newNo: index + 1 }} />
        ))
      )}
      <Omitted text={preview.content} />
    </div>
  );
}

function Block({ text }: { text: BoundedText }) {
  return (
    <>
      <span className="whitespace-pre-wrap break-all">
        <VisibleText text={text.text} lines />
      </span>
      <Omitted text={text} />
    </>
  );
}

/**
 * A call as a person reads it (the tool's `preview`): a command line, `METHOD URL` with headers
 * and body, a file's new content with its diff against the disk, or one line; the generic
 * one-line `summary` when the tool has no better form. `compact`: a few lines high, for the card.
 */
export const CallPreviewView = memo(function CallPreviewView({
  preview,
  summary,
  compact,
  testId,
}: {
  preview: CallPreview;
  summary: string;
  compact: boolean;
  testId?: string;
}) {
  const box = `${frame} overflow-auto ${heights[compact ? 'compact' : 'full']}`;
  const attributes = { 'data-testid': testId, 'data-kind': preview.kind };
  switch (preview.kind) {
    case 'command':
      return (
        <div className={box} {...attributes}>
          {preview.cwd && preview.cwd !== '.' && (
            <span className="mr-1 font-sans text-[11px] text-fg-muted">
              in <VisibleText text={preview.cwd} />
            </span>
          )}
          <span className="select-none text-fg-muted">$ </span>
          <Block text={preview.line} />
          {preview.stdin && (
            <span className="block text-fg-muted">
              <span className="font-sans text-[11px]">stdin: </span>
              <Block text={preview.stdin} />
            </span>
          )}
        </div>
      );
    case 'request':
      return (
        <div className={box} {...attributes}>
          <span className="font-semibold">{preview.method}</span>{' '}
          <span className="break-all">
            <VisibleText text={preview.url} />
          </span>
          {preview.headers.map((header) => (
            <span key={header.name} className="block break-all text-fg-muted">
              <VisibleText text={header.name} />: <VisibleText text={header.value} />
            </span>
          ))}
          {preview.body && (
            <span className="mt-0.5 block border-t border-line pt-0.5">
              <Block text={preview.body} />
            </span>
          )}
        </div>
      );
    case 'file':
      return (
        <div className={box} {...attributes}>
          <span className="flex flex-wrap items-center gap-x-2 font-sans text-[11px] text-fg-muted">
            <span className="font-mono text-[12px] text-fg">
              <VisibleText text={preview.path} />
            </span>
            <ChangeBadge change={preview.change} />
            <span>
              {preview.lines} line{preview.lines === 1 ? '' : 's'} · {preview.bytes.toLocaleString('en')} bytes
            </span>
          </span>
          <FileBody preview={preview} />
        </div>
      );
    case 'text':
      return (
        <div className={box} {...attributes}>
          <span className="whitespace-pre-wrap break-all">
            <VisibleText text={preview.text} lines />
          </span>
        </div>
      );
    default:
      return (
        <div className={`${frame} truncate`} {...attributes} title={escapeInvisible(summary)}>
          <VisibleText text={summary} />
        </div>
      );
  }
});
