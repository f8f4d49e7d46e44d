'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { formatDuration } from '@/lib/ui/format';
import { escapeInvisible } from '@/lib/ui/invisible-characters';
import { shortenMiddle } from '@/lib/ui/shorten-middle';
import { approvalWaitOfRow, type ListRow } from '@/lib/ui/summary-from-json';
import type { ActionOutcome } from '@/lib/ui/trace-actions';
import { filtersToSearch } from '@/lib/ui/trace-filters';
import { StatusBadge } from '../status';
import { Timestamp } from '../timestamp';
import { VisibleText } from '../visible-text';
import { LatencyCell } from './latency-cell';
import { RowMenu } from './row-menu';
import { TraceFlags } from './trace-flags';

/** Characters of a tool's name a row shows; a longer name (an MCP server's tool) is cut from the middle. */
const TOOL_NAME_CHARS = 32;

/**
 * One call in the list. Columns give way on narrow screens (see the table's header): on a phone
 * the time and the arguments summary stack under the tool name.
 */
export function TraceRow({
  row,
  summary,
  selected,
  fresh,
  slowestMs,
  onSelect,
  onAction,
}: {
  row: ListRow;
  /** The tool's one-line summary of the call (`summarizeCall`; empty when the store gives no preview). */
  summary: string;
  selected: boolean;
  fresh: boolean;
  slowestMs: number;
  onSelect: () => void;
  onAction: (outcome: ActionOutcome) => void;
}) {
  const router = useRouter();
  const href = `/traces/${row.id}`;
  // Titles are plain strings: invisible characters written as escapes there too.
  const summaryTitle = escapeInvisible(summary, { lines: true });
  const toolShown = shortenMiddle(row.tool, TOOL_NAME_CHARS);
  return (
    <tr
      data-testid="trace-row"
      data-trace-id={row.id}
      data-status={row.status}
      data-tool={row.tool}
      aria-selected={selected}
      onClick={(event) => {
        if ((event.target as HTMLElement).closest('a,button,[role="menu"],[role="alertdialog"]')) return;
        onSelect();
        router.push(href);
      }}
      className={`cursor-pointer border-t border-line align-top hover:bg-subtle aria-selected:bg-muted aria-selected:shadow-[inset_3px_0_0_var(--accent)] ${fresh ? 'row-arrive' : ''}`}
    >
      <td className="hidden whitespace-nowrap px-2 py-1 sm:table-cell">
        <Timestamp ms={row.createdAt} />
      </td>
      <td className="px-2 py-1">
        {/* A fixed width on phones: the stacked arguments line truncates instead of widening the table. */}
        <div className="w-36 md:w-auto">
          <Link
            href={href}
            data-row-link
            onFocus={onSelect}
            onClick={onSelect}
            className="block truncate font-mono text-[12px] text-accent hover:underline"
            aria-label={`Open ${escapeInvisible(row.tool)} call ${escapeInvisible(row.toolCallId)}, ${row.status}`}
            title={toolShown === row.tool ? undefined : escapeInvisible(row.tool)}
          >
            <VisibleText text={toolShown} />
          </Link>
          <span className="block text-[11px] text-fg-muted sm:hidden">
            <Timestamp ms={row.createdAt} />
          </span>
          {summary && (
            <span className="block truncate font-mono text-[11px] text-fg-muted md:hidden" title={summaryTitle}>
              <VisibleText text={summary} />
            </span>
          )}
        </div>
      </td>
      <td className="px-2 py-1 sm:whitespace-nowrap">
        <span className="flex flex-wrap items-center gap-x-1.5 gap-y-0.5 sm:flex-nowrap">
          <StatusBadge status={row.status} />
          {row.errorCode && (
            <span
              className="font-mono text-[11px] text-fg-muted [overflow-wrap:break-word]"
              data-testid="row-error-code"
            >
              {row.errorCode}
            </span>
          )}
        </span>
        <span className="block text-[11px] tabular-nums text-fg-muted sm:hidden">{formatDuration(row.latencyMs)}</span>
      </td>
      <td className="hidden whitespace-nowrap px-2 py-1 text-right sm:table-cell">
        <LatencyCell
          ms={row.latencyMs}
          slowestMs={slowestMs}
          failed={row.status === 'failed'}
          approvalWaitMs={approvalWaitOfRow(row)}
        />
      </td>
      <td
        className="hidden w-full max-w-0 truncate px-2 py-1 font-mono text-[12px] text-fg-muted md:table-cell"
        title={summaryTitle || undefined}
        data-testid="row-arguments"
      >
        {summary ? <VisibleText text={summary} /> : <span aria-hidden>—</span>}
      </td>
      <td className="hidden px-2 py-1 text-right tabular-nums lg:table-cell">{row.attemptCount}</td>
      <td className="hidden max-w-40 truncate px-2 py-1 font-mono text-[12px] lg:table-cell">
        {row.sessionId ? (
          <Link
            href={`/${filtersToSearch({ session: row.sessionId })}`}
            className="text-fg-muted hover:text-fg hover:underline"
            title={`Only session ${escapeInvisible(row.sessionId)}`}
          >
            <VisibleText text={row.sessionId} />
          </Link>
        ) : (
          <span className="text-fg-muted">—</span>
        )}
      </td>
      <td
        className="hidden max-w-28 truncate px-2 py-1 text-[12px] text-fg-muted lg:table-cell"
        data-testid="row-principal"
        title={
          row.principal
            ? `Made with the key ${escapeInvisible(row.principal.name)} (${row.principal.role})`
            : 'Made before principals'
        }
      >
        <VisibleText text={row.principal?.name ?? '—'} />
      </td>
      <td
        className="hidden max-w-48 truncate px-2 py-1 font-mono text-[12px] text-fg-muted xl:table-cell"
        title={escapeInvisible(row.toolCallId)}
      >
        <VisibleText text={row.toolCallId} />
      </td>
      <td className="hidden px-2 py-1 md:table-cell">
        <TraceFlags flags={row.flags} servedFrom={row.servedFrom} imported={row.imported} />
      </td>
      <td className="w-8 px-1 py-0.5 text-right">
        <RowMenu traceId={row.id} tool={row.tool} status={row.status} sessionId={row.sessionId} onDone={onAction} />
      </td>
    </tr>
  );
}
