'use client';

import { ArrowRight, LoaderCircle } from 'lucide-react';
import Link from 'next/link';
import type { Policy } from '@/lib/executor/types';
import { formatCount } from '@/lib/ui/format';
import { PolicyBadge } from '../tools/policy-badge';
import { countsBefore, LISTS, type PreviewJson } from './policy-draft';

/** How many changed calls are listed; the counts cover all of them. */
const SHOWN = 200;

function oneLine(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 160 ? `${text.slice(0, 159)}…` : text;
}

function Counts({ preview }: { preview: PreviewJson }) {
  const before = countsBefore(preview);
  return (
    <dl className="grid grid-cols-3 gap-1.5" data-testid="preview-counts">
      {LISTS.map((policy: Policy) => {
        const delta = preview.counts[policy] - before[policy];
        return (
          <div
            key={policy}
            className="rounded border border-line px-2 py-1"
            data-testid={`preview-count-${policy}`}
            data-before={before[policy]}
            data-after={preview.counts[policy]}
          >
            <dt>
              <PolicyBadge policy={policy} text={policy} />
            </dt>
            <dd className="mt-0.5 flex items-baseline gap-1 font-mono tabular-nums">
              <span className="text-fg-muted">{formatCount(before[policy])}</span>
              <ArrowRight size={11} className="self-center text-fg-muted" aria-label="to" />
              <span className="font-semibold">{formatCount(preview.counts[policy])}</span>
              {delta !== 0 ? (
                <span className={`text-[11px] ${delta > 0 ? 'text-fg' : 'text-fg-muted'}`}>
                  ({delta > 0 ? '+' : ''}
                  {delta})
                </span>
              ) : null}
            </dd>
          </div>
        );
      })}
    </dl>
  );
}

/**
 * How the draft rules would have decided the last recorded calls: counts before → after, and the
 * calls whose decision changes, each with the rule that decided before and after, linked to its trace.
 */
export function PreviewPanel({
  dirty,
  preview,
  loading,
  error,
}: {
  dirty: boolean;
  preview: PreviewJson | undefined;
  loading: boolean;
  error: string | null;
}) {
  return (
    <section
      aria-labelledby="preview-title"
      className="flex flex-col gap-1.5"
      data-testid="preview"
      data-state={!dirty ? 'idle' : loading ? 'loading' : error ? 'error' : 'ready'}
    >
      <h2
        id="preview-title"
        className="flex items-center gap-2 text-[11px] font-semibold uppercase tracking-wide text-fg-muted"
      >
        Draft preview
        {dirty && loading ? (
          <LoaderCircle size={12} className="animate-spin" aria-label="Deciding the calls again" />
        ) : null}
      </h2>
      {!dirty ? (
        <p className="rounded border border-dashed border-line px-2 py-2 text-[12px] text-fg-muted">
          No draft. Add or remove a rule to see how the draft would have decided the last 1,000 recorded calls before
          you save it.
        </p>
      ) : error ? (
        <p
          className="rounded border border-red-300 px-2 py-1 text-[12px] text-red-700 dark:border-red-800 dark:text-red-300"
          role="alert"
          data-testid="preview-error"
        >
          {error}
        </p>
      ) : !preview ? (
        <p className="text-[12px] text-fg-muted">Deciding the last recorded calls again…</p>
      ) : (
        <div className={`flex flex-col gap-1.5 ${loading ? 'opacity-60' : ''}`}>
          <p className="text-[12px] text-fg-muted" data-testid="preview-summary">
            How the draft would have decided the last{' '}
            <span className="font-semibold text-fg">{formatCount(preview.calls)}</span> recorded calls
            {preview.skipped > 0
              ? ` (${formatCount(preview.skipped)} skipped: tool gone or arguments no longer valid)`
              : ''}
            :{' '}
            <span className="font-semibold text-fg" data-testid="preview-changed-count">
              {formatCount(preview.changed.length)}
            </span>{' '}
            {preview.changed.length === 1 ? 'call would be' : 'calls would be'} decided differently.
          </p>
          <Counts preview={preview} />
          {preview.changed.length > 0 ? (
            <div className="overflow-x-auto rounded border border-line">
              <table className="w-full border-collapse text-left text-[12px]" data-testid="preview-changed">
                <caption className="sr-only">Calls whose decision the draft changes, newest first</caption>
                <thead className="bg-subtle text-[11px] uppercase tracking-wide text-fg-muted">
                  <tr>
                    <th scope="col" className="px-2 py-1 font-medium">
                      Call
                    </th>
                    <th scope="col" className="px-2 py-1 font-medium">
                      Arguments
                    </th>
                    <th scope="col" className="px-2 py-1 font-medium">
                      Before → after
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {preview.changed.slice(0, SHOWN).map((call) => (
                    <tr
                      key={call.trace_id}
                      className="border-t border-line align-top hover:bg-subtle"
                      data-testid="preview-call"
                      data-trace-id={call.trace_id}
                    >
                      <td className="px-2 py-1">
                        <Link
                          href={`/traces/${encodeURIComponent(call.trace_id)}`}
                          className="font-mono font-medium text-accent hover:underline"
                          title={`Open trace ${call.trace_id}`}
                        >
                          {call.tool}
                        </Link>
                        <div className="whitespace-nowrap font-mono text-[11px] text-fg-muted">
                          {call.trace_id.slice(0, 8)}
                        </div>
                      </td>
                      <td className="max-w-[22rem] px-2 py-1">
                        <code className="block truncate font-mono text-[11px]" title={oneLine(call.arguments)}>
                          {oneLine(call.arguments)}
                        </code>
                      </td>
                      <td className="px-2 py-1">
                        <div className="flex items-center gap-1">
                          <PolicyBadge policy={call.before.policy} text={call.before.policy} />
                          <ArrowRight size={11} className="text-fg-muted" aria-label="to" />
                          <PolicyBadge policy={call.after.policy} text={call.after.policy} />
                        </div>
                        <div className="font-mono text-[11px] text-fg-muted">
                          <span>{call.before.rule}</span>
                          {' → '}
                          <span className="text-fg">{call.after.rule}</span>
                        </div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {preview.changed.length > SHOWN ? (
                <p className="border-t border-line px-2 py-1 text-[12px] text-fg-muted">
                  {formatCount(preview.changed.length - SHOWN)} more changed calls not listed.
                </p>
              ) : null}
            </div>
          ) : null}
          {preview.arguments_redacted ? (
            <p className="text-[11px] text-fg-muted">
              Arguments are the recorded, redacted ones, and the rules were judged against them. A tool's own check
              (shell allowlist, HTTP hosts) is not part of the preview.
            </p>
          ) : null}
        </div>
      )}
    </section>
  );
}
