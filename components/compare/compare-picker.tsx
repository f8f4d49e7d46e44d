'use client';

import { useQuery } from '@tanstack/react-query';
import { GitCompareArrows, Search, X } from 'lucide-react';
import Link from 'next/link';
import { type KeyboardEvent, useEffect, useId, useRef, useState } from 'react';
import {
  type Candidate,
  type CandidateGroup,
  type CompareSubject,
  candidateGroups,
  candidateUrl,
  GROUP_LIMIT,
  lineageGroups,
} from '@/lib/ui/compare-candidates';
import { shortId } from '@/lib/ui/format';
import type { SummaryJson } from '@/lib/ui/summary-from-json';
import { fetchOrUnreachable } from '@/lib/ui/unreachable';
import { StatusBadge } from '../status';
import { Timestamp } from '../timestamp';

/** How long the search waits after the last key before it asks the server. */
const SEARCH_DEBOUNCE_MS = 250;

/** The JSON of `url`; null for a 404 when `missingOk`; throws with the API's message otherwise. */
async function getJson<T>(url: string, missingOk = false): Promise<T | null> {
  const response = await fetchOrUnreachable(url, { cache: 'no-store' });
  if (missingOk && response.status === 404) return null;
  const body = await response.json().catch(() => null);
  if (!response.ok) throw new Error(body?.error?.message ?? `HTTP ${response.status}`);
  return body as T;
}

interface SessionRowJson {
  id: string;
  calls: number;
  last_call_at: string | null;
  kind?: 'call' | 'session';
}

const fromCall = (call: SummaryJson): Candidate => ({
  id: call.id,
  tool: call.tool,
  status: call.status,
  sessionId: call.session_id,
  at: call.created_at,
});
const fromSession = (session: SessionRowJson): Candidate => ({
  id: session.id,
  calls: session.calls,
  at: session.last_call_at,
  relation: session.kind === 'call' ? 'replay of a call' : session.kind === 'session' ? 'session replay' : undefined,
});

const callsUrl = (params: Record<string, string>) =>
  `/api/v1/traces?${new URLSearchParams({ ...params, limit: String(GROUP_LIMIT + 1) })}`;
const sessionsUrl = (params: Record<string, string>) =>
  `/api/v1/sessions?${new URLSearchParams({ ...params, limit: String(GROUP_LIMIT + 1) })}`;

/** The groups a call is compared with: its session's calls of its tool, the tool's recent calls, a search. */
async function traceGroups(subject: Extract<CompareSubject, { kind: 'trace' }>, text: string) {
  const groups: CandidateGroup[] = [];
  if (text) {
    const [found, exact] = await Promise.all([
      getJson<{ items: SummaryJson[] }>(callsUrl({ q: text })),
      // A whole trace id: the list's search matches only its last 8 characters.
      text.length > 8 && !/\s/.test(text)
        ? getJson<SummaryJson>(`/api/v1/traces/${encodeURIComponent(text)}`, true)
        : Promise.resolve(null),
    ]);
    groups.push({
      key: 'search',
      title: `Calls matching “${text}”`,
      searched: true,
      candidates: [...(exact ? [fromCall(exact)] : []), ...(found?.items ?? []).map(fromCall)],
    });
  }
  const [sameSession, recent] = await Promise.all([
    subject.sessionId
      ? getJson<{ items: SummaryJson[] }>(callsUrl({ tool: subject.tool, session: subject.sessionId }))
      : Promise.resolve(null),
    getJson<{ items: SummaryJson[] }>(callsUrl({ tool: subject.tool })),
  ]);
  if (sameSession) {
    groups.push({
      key: 'session',
      title: `${subject.tool} in this session`,
      candidates: sameSession.items.map(fromCall),
    });
  }
  groups.push({
    key: 'recent',
    title: `Recent calls of ${subject.tool}`,
    candidates: (recent?.items ?? []).map(fromCall),
  });
  return groups;
}

/** The groups a session is compared with: its replay sessions, recent sessions, a search. */
async function sessionGroups(subject: Extract<CompareSubject, { kind: 'session' }>, text: string) {
  const [replays, listed] = await Promise.all([
    getJson<{ sessions: SessionRowJson[] }>(`/api/v1/sessions/${encodeURIComponent(subject.id)}/replays`, true),
    getJson<{ sessions: SessionRowJson[] }>(sessionsUrl(text ? { q: text } : {})),
  ]);
  return [
    { key: 'replays', title: 'Replays of this session', candidates: (replays?.sessions ?? []).map(fromSession) },
    {
      key: text ? 'search' : 'recent',
      title: text ? `Sessions matching “${text}”` : 'Recent sessions',
      searched: text !== '',
      candidates: (listed?.sessions ?? []).map(fromSession),
    },
  ];
}

/** `value`, once it has stayed the same for `ms`. */
function useDebounced(value: string, ms: number): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

function CandidateRow({ subject, candidate }: { subject: CompareSubject; candidate: Candidate }) {
  const at = candidate.at ? Date.parse(candidate.at) : Number.NaN;
  return (
    <li>
      <Link
        href={candidateUrl(subject, candidate.id)}
        className="flex min-w-0 flex-wrap items-center gap-x-2 gap-y-0.5 rounded px-2 py-1 text-xs hover:bg-muted focus:bg-muted focus:outline-none"
        data-candidate
        data-testid="compare-candidate"
        data-id={candidate.id}
        title={candidate.id}
      >
        <span className="min-w-0 truncate font-mono text-accent">
          {subject.kind === 'trace' ? shortId(candidate.id) : candidate.id}
        </span>
        {candidate.relation && (
          <span className="rounded border border-line px-1 text-[10px] text-fg-muted">{candidate.relation}</span>
        )}
        {candidate.tool && <span className="font-mono">{candidate.tool}</span>}
        {candidate.status && <StatusBadge status={candidate.status} />}
        {candidate.calls !== undefined && (
          <span className="tabular-nums text-fg-muted">
            {candidate.calls} call{candidate.calls === 1 ? '' : 's'}
          </span>
        )}
        {subject.kind === 'trace' && candidate.sessionId && (
          <span className="min-w-0 max-w-[14rem] truncate font-mono text-[11px] text-fg-muted">
            {candidate.sessionId}
          </span>
        )}
        {!Number.isNaN(at) && (
          <span className="ml-auto text-fg-muted">
            <Timestamp ms={at} />
          </span>
        )}
      </Link>
    </li>
  );
}

/** The list inside the open dialog: asks the server only while it is open. */
function PickerBody({ subject, text }: { subject: CompareSubject; text: string }) {
  const query = useQuery({
    queryKey: ['compare-picker', subject.kind, subject.id, text],
    queryFn: () => (subject.kind === 'trace' ? traceGroups(subject, text) : sessionGroups(subject, text)),
    staleTime: 10_000,
  });
  const groups = candidateGroups(subject.id, [...lineageGroups(subject), ...(query.data ?? [])], text);
  return (
    <div className="flex max-h-[60vh] flex-col gap-2 overflow-y-auto px-2 pb-3" data-testid="compare-picker-list">
      {groups.map((group) => (
        <section key={group.key} aria-label={group.title} data-group={group.key}>
          <h3 className="px-2 pt-1 text-[11px] font-semibold uppercase tracking-wide text-fg-muted">{group.title}</h3>
          <ul>
            {group.candidates.map((candidate) => (
              <CandidateRow key={candidate.id} subject={subject} candidate={candidate} />
            ))}
          </ul>
        </section>
      ))}
      {query.isPending && <p className="px-2 text-xs text-fg-muted">Looking for candidates…</p>}
      {query.isError && (
        <p role="alert" className="px-2 text-xs text-red-700 dark:text-red-300">
          Could not list candidates: {query.error.message}
        </p>
      )}
      {!query.isPending && groups.length === 0 && (
        <p className="px-2 text-xs text-fg-muted" data-testid="compare-picker-empty">
          {text
            ? `Nothing matches “${text}”.`
            : `No other ${subject.kind === 'trace' ? 'call' : 'session'} to compare with.`}
        </p>
      )}
    </div>
  );
}

/**
 * "Compare with…": a button and a dialog listing what to compare the call or session with — for a
 * call, the call it replays, its replays, calls of its tool in its session and recently; for a
 * session, the session it replays, its replay sessions and recent sessions — with a search box
 * (ids; the server's search beyond what is listed). A choice opens the compare page. Arrow keys
 * move through the list; Esc closes.
 */
export function ComparePicker({ subject }: { subject: CompareSubject }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const [open, setOpen] = useState(false);
  const [text, setText] = useState('');
  const settled = useDebounced(text.trim(), SEARCH_DEBOUNCE_MS);
  const titleId = useId();
  const what = subject.kind === 'trace' ? 'call' : 'session';

  const show = () => {
    setOpen(true);
    dialog.current?.showModal();
    input.current?.focus();
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDialogElement>) => {
    // Keys stay in the dialog: the page's shortcuts (r replays, j/k move) do not fire behind it.
    event.stopPropagation();
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    const items = [...(dialog.current?.querySelectorAll<HTMLElement>('[data-candidate]') ?? [])];
    if (items.length === 0) return;
    event.preventDefault();
    const at = items.indexOf(document.activeElement as HTMLElement);
    const next = event.key === 'ArrowDown' ? Math.min(items.length - 1, at + 1) : at - 1;
    if (next < 0) input.current?.focus();
    else items[next]?.focus();
  };

  return (
    <>
      <button
        type="button"
        onClick={show}
        className="inline-flex items-center gap-1 rounded border border-line px-1.5 py-0.5 text-xs text-fg-muted hover:bg-muted hover:text-fg"
        title={`Compare this ${what} with another`}
        aria-haspopup="dialog"
        data-testid="compare-picker-button"
      >
        <GitCompareArrows size={12} aria-hidden /> Compare with…
      </button>
      <dialog
        ref={dialog}
        aria-labelledby={titleId}
        data-testid="compare-picker"
        className="m-auto w-[min(36rem,calc(100vw-2rem))] rounded-md border border-line bg-bg p-0 text-fg shadow-xl backdrop:bg-black/40"
        onClose={() => {
          setOpen(false);
          setText('');
        }}
        onClick={(event) => {
          // a click on the backdrop (the dialog element itself, outside its content) closes it
          if (event.target === event.currentTarget) event.currentTarget.close();
        }}
        onKeyDown={onKeyDown}
      >
        <div className="flex items-center justify-between gap-2 border-b border-line px-4 py-2">
          <h2 id={titleId} className="min-w-0 truncate text-sm font-semibold">
            Compare {what} <span className="font-mono font-normal">{shortId(subject.id)}</span> with…
          </h2>
          <button
            type="button"
            onClick={() => dialog.current?.close()}
            className="rounded p-1 text-fg-muted hover:bg-muted hover:text-fg"
            aria-label="Close"
          >
            <X size={14} aria-hidden />
          </button>
        </div>
        <label className="mx-4 my-2 flex items-center gap-1.5 rounded border border-line px-2 focus-within:border-accent">
          <Search size={13} aria-hidden className="text-fg-muted" />
          <span className="sr-only">Search {what} ids</span>
          <input
            ref={input}
            type="search"
            value={text}
            onChange={(event) => setText(event.target.value)}
            placeholder={subject.kind === 'trace' ? 'Search trace ids…' : 'Search session ids…'}
            className="h-8 w-full bg-transparent text-[13px] outline-none"
            maxLength={256}
            autoComplete="off"
            data-testid="compare-picker-search"
          />
        </label>
        {open && <PickerBody subject={subject} text={settled} />}
      </dialog>
    </>
  );
}
