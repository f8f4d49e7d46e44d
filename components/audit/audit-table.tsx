'use client';

import { ChevronDown, ChevronRight, Filter } from 'lucide-react';
import Link from 'next/link';
import { Fragment, useState } from 'react';
import type { AuditEntryJson } from '@/lib/ui/audit-api';
import { detailSummary, targetHref } from '@/lib/ui/audit-summary';
import { RoleBadge } from '../access/role-badge';
import { CopyButton } from '../copy-button';
import { Timestamp } from '../timestamp';

// On a phone each row wraps into a small card (time, who, kind, target, then the detail): no sideways scroll.
const td = 'px-2 py-1 align-top max-sm:px-0 max-sm:py-0';
const th = 'px-2 py-1 font-medium';

/** Failures in red, what removed or revoked something in orange, the rest plain. */
function kindLook(kind: string): string {
  if (kind.endsWith('.failed')) return 'text-red-700 dark:text-red-300';
  if (/deleted|revoked|reset|cancelled/.test(kind)) return 'text-orange-700 dark:text-orange-300';
  return 'text-fg';
}

/** A small button that narrows the list to one principal or target. */
function FilterButton({ label, onClick, testId }: { label: string; onClick: () => void; testId: string }) {
  return (
    <button
      type="button"
      onClick={onClick}
      className="shrink-0 rounded p-0.5 text-fg-muted opacity-60 hover:bg-muted hover:text-fg hover:opacity-100 focus-visible:opacity-100"
      aria-label={label}
      title={label}
      data-testid={testId}
    >
      <Filter size={10} aria-hidden />
    </button>
  );
}

/**
 * The trail, newest first, one dense row per entry: #seq, time, who (name and role), kind,
 * target (a link to its trace, session or fault rule when it has a page), what the detail says in
 * a line (its full JSON one click away), address and the start of the hash. A principal's or a
 * target's filter button narrows the list to it. The entry where a verified chain breaks is red.
 */
export function AuditTable({
  entries,
  stale,
  badSeq,
  onPrincipal,
  onTarget,
}: {
  entries: AuditEntryJson[];
  /** The entries are the last filters' while the new ones load. */
  stale: boolean;
  /** The first entry a verification found broken. */
  badSeq: number | null;
  onPrincipal: (id: string) => void;
  onTarget: (target: string) => void;
}) {
  const [open, setOpen] = useState<ReadonlySet<number>>(() => new Set());
  const toggle = (seq: number) =>
    setOpen((current) => {
      const next = new Set(current);
      if (!next.delete(seq)) next.add(seq);
      return next;
    });

  return (
    <div
      className={`relative overflow-x-auto rounded border border-line transition-opacity ${stale ? 'opacity-50' : ''}`}
      aria-busy={stale}
    >
      <table className="w-full border-collapse text-left text-[12px] max-sm:block" data-testid="audit-table">
        <caption className="sr-only">Audit trail, newest first</caption>
        <thead className="bg-subtle text-[11px] uppercase tracking-wide text-fg-muted max-sm:hidden">
          <tr>
            <th scope="col" className={`${th} text-right`}>
              #
            </th>
            <th scope="col" className={th}>
              Time
            </th>
            <th scope="col" className={th}>
              Who
            </th>
            <th scope="col" className={th}>
              Kind
            </th>
            <th scope="col" className={th}>
              Target
            </th>
            <th scope="col" className={th}>
              Detail
            </th>
            <th scope="col" className={`${th} hidden md:table-cell`}>
              Address
            </th>
            <th scope="col" className={`${th} hidden md:table-cell`}>
              Hash
            </th>
          </tr>
        </thead>
        <tbody className="max-sm:block">
          {entries.map((entry) => {
            const href = targetHref(entry);
            const summary = detailSummary(entry);
            const expanded = open.has(entry.seq);
            const bad = entry.seq === badSeq;
            const json = JSON.stringify(entry.detail, null, 2);
            return (
              <Fragment key={entry.seq}>
                <tr
                  className={`border-t border-line hover:bg-subtle max-sm:flex max-sm:flex-wrap max-sm:items-baseline max-sm:gap-x-2 max-sm:gap-y-0.5 max-sm:px-2 max-sm:py-1.5 ${bad ? 'bg-red-50 shadow-[inset_3px_0_0_0_var(--color-red-500)] dark:bg-red-950/30' : ''}`}
                  data-testid="audit-row"
                  data-seq={entry.seq}
                  data-kind={entry.kind}
                  data-target={entry.target ?? ''}
                  data-principal={entry.principal.id}
                >
                  <td className={`${td} text-right tabular-nums text-fg-muted`}>
                    <span className="sm:hidden">#</span>
                    {entry.seq}
                  </td>
                  <td className={`${td} whitespace-nowrap`}>
                    <Timestamp ms={Date.parse(entry.at)} />
                  </td>
                  <td className={td}>
                    <span className="inline-flex items-center gap-1 whitespace-nowrap" data-testid="audit-who">
                      <span className="max-w-[10rem] truncate font-medium" title={entry.principal.id}>
                        {entry.principal.name}
                      </span>
                      <RoleBadge role={entry.principal.role} />
                      <FilterButton
                        label={`Only entries by ${entry.principal.name}`}
                        onClick={() => onPrincipal(entry.principal.id)}
                        testId="audit-filter-principal"
                      />
                    </span>
                  </td>
                  <td
                    className={`${td} whitespace-nowrap font-mono ${kindLook(entry.kind)}`}
                    data-testid="audit-entry-kind"
                  >
                    {entry.kind}
                  </td>
                  <td className={td}>
                    {entry.target ? (
                      <span className="inline-flex max-w-[16rem] items-center gap-0.5">
                        {href ? (
                          <Link
                            href={href}
                            className="truncate font-mono text-accent hover:underline"
                            title={entry.target}
                            data-testid="audit-target-link"
                          >
                            {entry.target}
                          </Link>
                        ) : (
                          <span className="truncate font-mono" title={entry.target}>
                            {entry.target}
                          </span>
                        )}
                        <FilterButton
                          label={`Only entries on ${entry.target}`}
                          onClick={() => onTarget(entry.target as string)}
                          testId="audit-filter-target"
                        />
                      </span>
                    ) : (
                      <span className="text-fg-muted">—</span>
                    )}
                  </td>
                  <td className={`${td} min-w-[16rem] max-w-[40rem] max-sm:min-w-0 max-sm:basis-full`}>
                    <span className="flex items-start gap-1">
                      <button
                        type="button"
                        onClick={() => toggle(entry.seq)}
                        aria-expanded={expanded}
                        aria-label={`${expanded ? 'Hide' : 'Show'} the full detail of entry ${entry.seq}`}
                        className="mt-px shrink-0 rounded text-fg-muted hover:bg-muted hover:text-fg"
                        data-testid="audit-detail-toggle"
                      >
                        {expanded ? <ChevronDown size={13} aria-hidden /> : <ChevronRight size={13} aria-hidden />}
                      </button>
                      <span className={summary ? 'break-words' : 'text-fg-muted'} data-testid="audit-summary">
                        {summary || '—'}
                      </span>
                    </span>
                  </td>
                  <td className={`${td} hidden whitespace-nowrap font-mono text-fg-muted md:table-cell`}>
                    {entry.address ?? '—'}
                  </td>
                  <td className={`${td} hidden font-mono text-fg-muted md:table-cell`} title={entry.hash}>
                    {entry.hash.slice(0, 8)}
                  </td>
                </tr>
                {expanded ? (
                  <tr
                    className="border-t border-dashed border-line bg-subtle max-sm:block"
                    data-testid="audit-detail-row"
                  >
                    <td className="max-sm:hidden" />
                    <td colSpan={7} className="px-2 py-1.5 max-sm:block">
                      <div className="flex flex-col gap-1">
                        <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-[11px] text-fg-muted">
                          <span>
                            principal <span className="font-mono text-fg">{entry.principal.id}</span>
                          </span>
                          <span className="md:hidden">
                            address <span className="font-mono text-fg">{entry.address ?? '—'}</span>
                          </span>
                          <span className="break-all">
                            hash <span className="font-mono text-fg">{entry.hash}</span>
                          </span>
                          <CopyButton text={json} label="Copy detail" />
                        </div>
                        <pre
                          className="max-h-80 overflow-auto rounded border border-line bg-bg px-2 py-1 font-mono text-[11px] leading-snug"
                          data-testid="audit-detail-json"
                        >
                          {json}
                        </pre>
                      </div>
                    </td>
                  </tr>
                ) : null}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
