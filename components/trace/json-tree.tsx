'use client';

import { ChevronDown, ChevronRight, Lock, TriangleAlert } from 'lucide-react';
import { useState } from 'react';
import { type FieldIssue, REDACTED_MARK } from '@/lib/ui/json-issues';
import { escapeJsonString } from '@/lib/ui/text-marks';
import { VisibleText } from '../visible-text';
import { MarkedText } from './text-marks';

const CHILD_PAGE = 200;
const STRING_PREVIEW = 400;
/** JSON escape sequences in an escaped string: `\n`, `\"`, `\\`, `\u0007`... */
const ESCAPE = /\\(?:u[0-9a-fA-F]{4}|.)/g;

interface TreeProps {
  value: unknown;
  /** Field issues to highlight (INVALID_ARGUMENTS); paths are dotted. */
  issues?: FieldIssue[];
  /** Levels expanded at first. */
  expandDepth?: number;
  label?: string;
  testId?: string;
}

/**
 * A JSON value as a collapsible tree. Strings are shown escaped (`\n`, `\"`, control characters;
 * invisible and bidirectional characters, in keys too, as marked escapes) and wrap anywhere, so a
 * long or multi-line value never breaks the layout. Redacted values are marked with a lock and the word "redacted", `[REDACTED]` inside a string with a lock mark;
 * fields named by `issues` are highlighted with their messages, including required fields that
 * are missing (shown where they would be). Large arrays and long strings are paged.
 */
export function JsonTree({ value, issues = [], expandDepth = 3, label, testId }: TreeProps) {
  const byPath = new Map<string, FieldIssue[]>();
  for (const issue of issues) byPath.set(issue.path, [...(byPath.get(issue.path) ?? []), issue]);
  const rootIssues = byPath.get('') ?? [];
  return (
    <div
      className="min-w-0 font-mono text-[12px] leading-5 [overflow-wrap:anywhere]"
      data-testid={testId}
      data-label={label}
    >
      {rootIssues.map((issue) => (
        <IssueNote key={`${issue.code}:${issue.message}`} issue={issue} />
      ))}
      <Node value={value} path={[]} depth={0} expandDepth={expandDepth} byPath={byPath} />
    </div>
  );
}

function IssueNote({ issue }: { issue: FieldIssue }) {
  return (
    <span
      className="ml-2 inline-flex items-center gap-1 rounded bg-red-100 px-1 font-sans text-[11px] text-red-800 dark:bg-red-950 dark:text-red-200"
      data-testid="field-issue"
      data-path={issue.path}
    >
      <TriangleAlert size={11} aria-hidden />
      {issue.message}
      <span className="opacity-70">({issue.code})</span>
    </span>
  );
}

/** An escaped string's text with its escape sequences dimmed and `[REDACTED]` marked. */
function EscapedText({ text }: { text: string }) {
  const parts: React.ReactNode[] = [];
  let last = 0;
  for (const match of text.matchAll(ESCAPE)) {
    const at = match.index ?? 0;
    if (at > last) parts.push(<MarkedText key={`t${at}`} keyPrefix={`${at}:`} text={text.slice(last, at)} />);
    parts.push(
      <span key={`e${at}`} className="text-fg-muted" data-escape>
        {match[0]}
      </span>,
    );
    last = at + match[0].length;
  }
  if (last < text.length) parts.push(<MarkedText key={`t${last}`} keyPrefix={`${last}:`} text={text.slice(last)} />);
  return <>{parts}</>;
}

function Primitive({ value }: { value: unknown }) {
  const [full, setFull] = useState(false);
  if (value === null) return <span className="text-purple-700 dark:text-purple-300">null</span>;
  if (typeof value === 'boolean') return <span className="text-purple-700 dark:text-purple-300">{String(value)}</span>;
  if (typeof value === 'number') return <span className="text-blue-700 dark:text-blue-300">{String(value)}</span>;
  if (typeof value === 'string') {
    if (value === REDACTED_MARK) {
      return (
        <span
          className="inline-flex items-center gap-1 rounded border border-dashed border-amber-500 bg-amber-50 px-1 italic text-amber-900 dark:bg-amber-950/50 dark:text-amber-200"
          data-testid="redacted-value"
          title="This value was redacted before it was stored"
        >
          <Lock size={11} aria-hidden />
          redacted
        </span>
      );
    }
    // Escaped as in JSON: a newline reads \n and a quote \", so a value never fakes structure.
    const escaped = escapeJsonString(value);
    const long = escaped.length > STRING_PREVIEW && !full;
    const shown = long ? escaped.slice(0, STRING_PREVIEW) : escaped;
    return (
      <span className="whitespace-pre-wrap [overflow-wrap:anywhere] text-emerald-800 dark:text-emerald-300" data-string>
        "<EscapedText text={shown} />
        {long && (
          <button
            type="button"
            className="mx-1 rounded border border-line px-1 font-sans text-[11px] text-fg-muted hover:bg-muted"
            onClick={() => setFull(true)}
          >
            … {(escaped.length - STRING_PREVIEW).toLocaleString('en-US')} more characters
          </button>
        )}
        "
      </span>
    );
  }
  return <span>{JSON.stringify(value) ?? String(value)}</span>;
}

function Node({
  value,
  path,
  depth,
  expandDepth,
  byPath,
  name,
}: {
  value: unknown;
  path: string[];
  depth: number;
  expandDepth: number;
  byPath: Map<string, FieldIssue[]>;
  name?: string;
}) {
  const isArray = Array.isArray(value);
  const isObject = value !== null && typeof value === 'object';
  const [open, setOpen] = useState(depth < expandDepth);
  const [shown, setShown] = useState(CHILD_PAGE);
  const dotted = path.join('.');
  const issues = path.length > 0 ? (byPath.get(dotted) ?? []) : [];
  const highlighted = issues.length > 0;
  const keyLabel =
    name === undefined ? null : (
      <span className={highlighted ? 'font-semibold text-red-700 dark:text-red-300' : 'text-fg-muted'}>
        <VisibleText text={name} />
        <span className="text-fg-muted">: </span>
      </span>
    );
  const rowClass = highlighted
    ? 'rounded bg-red-50 outline outline-1 outline-red-300 dark:bg-red-950/40 dark:outline-red-800'
    : '';

  if (!isObject) {
    return (
      <div className={rowClass} data-path={dotted} data-invalid={highlighted || undefined}>
        {keyLabel}
        <Primitive value={value} />
        {issues.map((issue) => (
          <IssueNote key={`${issue.code}:${issue.message}`} issue={issue} />
        ))}
      </div>
    );
  }

  const entries: [string, unknown][] = isArray
    ? (value as unknown[]).map((v, i) => [String(i), v])
    : Object.entries(value as Record<string, unknown>);
  // Issues on children that are absent (missing required fields) are shown as ghost rows.
  const present = new Set(entries.map(([k]) => k));
  const missing: FieldIssue[] = [];
  for (const [issuePath, list] of byPath) {
    const parts = issuePath === '' ? [] : issuePath.split('.');
    if (parts.length === path.length + 1 && parts.slice(0, -1).join('.') === dotted && !present.has(parts.at(-1)!)) {
      missing.push(...list);
    }
  }
  const [openBracket, closeBracket] = isArray ? ['[', ']'] : ['{', '}'];
  const summary = isArray
    ? `${entries.length} item${entries.length === 1 ? '' : 's'}`
    : `${entries.length} key${entries.length === 1 ? '' : 's'}`;
  return (
    <div data-path={dotted} data-invalid={highlighted || undefined}>
      <div className={`flex items-start ${rowClass}`}>
        <button
          type="button"
          onClick={() => setOpen(!open)}
          className="-ml-0.5 mr-0.5 mt-0.5 rounded text-fg-muted hover:bg-muted"
          aria-label={`${open ? 'Collapse' : 'Expand'} ${name ?? 'value'}`}
        >
          {open ? <ChevronDown size={12} aria-hidden /> : <ChevronRight size={12} aria-hidden />}
        </button>
        <span className="min-w-0">
          {keyLabel}
          {openBracket}
          {!open && (
            <span className="text-fg-muted">
              {' '}
              {summary} {closeBracket}
            </span>
          )}
          {issues.map((issue) => (
            <IssueNote key={`${issue.code}:${issue.message}`} issue={issue} />
          ))}
        </span>
      </div>
      {open && (
        <>
          <div className="ml-4 min-w-0 border-l border-line pl-2">
            {entries.slice(0, shown).map(([key, child]) => (
              <Node
                key={key}
                name={isArray ? undefined : JSON.stringify(key)}
                value={child}
                path={[...path, key]}
                depth={depth + 1}
                expandDepth={expandDepth}
                byPath={byPath}
              />
            ))}
            {entries.length > shown && (
              <button
                type="button"
                className="my-0.5 rounded border border-line px-1 font-sans text-[11px] text-fg-muted hover:bg-muted"
                onClick={() => setShown(shown + CHILD_PAGE * 5)}
              >
                Show {Math.min(CHILD_PAGE * 5, entries.length - shown)} more of {entries.length - shown}
              </button>
            )}
            {missing.map((issue) => (
              <div
                key={`${issue.path}:${issue.code}`}
                data-path={issue.path}
                data-invalid
                className="rounded bg-red-50 italic outline outline-1 outline-dashed outline-red-300 dark:bg-red-950/40 dark:outline-red-800"
              >
                <span className="font-semibold text-red-700 dark:text-red-300">
                  <VisibleText text={JSON.stringify(issue.path.split('.').at(-1))} />
                </span>
                <span className="text-fg-muted">: (missing)</span>
                <IssueNote issue={issue} />
              </div>
            ))}
          </div>
          <div>{closeBracket}</div>
        </>
      )}
    </div>
  );
}
