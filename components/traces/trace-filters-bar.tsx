'use client';

import { Search, X, Zap } from 'lucide-react';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import type { FormEvent } from 'react';
import { escapeInvisible } from '@/lib/ui/invisible-characters';
import { CALL_STATUSES, filtersToSearch, hasFilters, TIME_RANGES, type TraceFilters } from '@/lib/ui/trace-filters';

export const FILTER_TEXT_ID = 'trace-filter-q';

const field =
  'h-7 rounded border border-line bg-bg px-1.5 text-[13px] text-fg placeholder:text-fg-muted focus-visible:outline-2';

/**
 * The list's filters as a GET form: works without JavaScript, and with it navigates client-side
 * so the filters always live in the URL (shareable, survive a reload). Selects apply on change.
 */
export function TraceFiltersBar({ filters, tools }: { filters: TraceFilters; tools: string[] }) {
  const router = useRouter();

  const apply = (form: HTMLFormElement) => {
    const data = new FormData(form);
    const value = (key: string) => {
      const v = data.get(key);
      return typeof v === 'string' && v.trim() ? v.trim() : undefined;
    };
    const next: TraceFilters = {
      tool: value('tool'),
      status: value('status') as TraceFilters['status'],
      session: value('session'),
      range: value('range') as TraceFilters['range'],
      q: value('q'),
      faulted: data.get('faulted') === 'true' ? true : undefined,
      // absolute bounds survive until cleared; a new relative range replaces them
      from: value('range') ? undefined : filters.from,
      to: value('range') ? undefined : filters.to,
    };
    router.push(`/${filtersToSearch(next)}`);
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    apply(event.currentTarget);
  };
  const toolOptions = filters.tool && !tools.includes(filters.tool) ? [...tools, filters.tool] : tools;

  return (
    <form
      action="/"
      method="get"
      onSubmit={onSubmit}
      className="flex flex-wrap items-end gap-2"
      aria-label="Filter traces"
      data-testid="trace-filters"
    >
      <label className="flex flex-col gap-0.5 text-[11px] uppercase tracking-wide text-fg-muted">
        Tool
        <select
          name="tool"
          defaultValue={filters.tool ?? ''}
          className={field}
          data-testid="filter-tool"
          onChange={(e) => e.currentTarget.form && apply(e.currentTarget.form)}
        >
          <option value="">All tools</option>
          {toolOptions.map((tool) => (
            <option key={tool} value={tool}>
              {escapeInvisible(tool)}
            </option>
          ))}
        </select>
      </label>
      <label className="flex flex-col gap-0.5 text-[11px] uppercase tracking-wide text-fg-muted">
        Status
        <select
          name="status"
          defaultValue={filters.status ?? ''}
          className={field}
          data-testid="filter-status"
          onChange={(e) => e.currentTarget.form && apply(e.currentTarget.form)}
        >
          <option value="">Any status</option>
          {CALL_STATUSES.map((status) => (
            <option key={status} value={status}>
              {status.replace('_', ' ')}
            </option>
          ))}
        </select>
      </label>
      <label className="flex flex-col gap-0.5 text-[11px] uppercase tracking-wide text-fg-muted">
        Time
        <select
          name="range"
          defaultValue={filters.range ?? ''}
          className={field}
          data-testid="filter-range"
          onChange={(e) => e.currentTarget.form && apply(e.currentTarget.form)}
        >
          <option value="">{filters.from || filters.to ? 'Custom range' : 'Any time'}</option>
          {Object.entries(TIME_RANGES).map(([key, range]) => (
            <option key={key} value={key}>
              {range.label}
            </option>
          ))}
        </select>
      </label>
      <label className="flex flex-col gap-0.5 text-[11px] uppercase tracking-wide text-fg-muted">
        Session
        <input
          name="session"
          defaultValue={filters.session ?? ''}
          placeholder="session id"
          className={`${field} w-32 font-mono sm:w-36`}
          data-testid="filter-session"
        />
      </label>
      <label
        className="flex h-7 cursor-pointer items-center gap-1 rounded border border-line px-1.5 text-[13px] text-fg has-[:checked]:border-fuchsia-300 has-[:checked]:bg-fuchsia-50 has-[:checked]:text-fuchsia-800 dark:has-[:checked]:border-fuchsia-800 dark:has-[:checked]:bg-fuchsia-950/50 dark:has-[:checked]:text-fuchsia-300"
        title="Only calls into which a fault rule (or a one-off fault) was injected"
      >
        <input
          type="checkbox"
          name="faulted"
          value="true"
          defaultChecked={filters.faulted === true}
          className="accent-fuchsia-600"
          data-testid="filter-faulted"
          onChange={(e) => e.currentTarget.form && apply(e.currentTarget.form)}
        />
        <Zap size={12} aria-hidden />
        Fault-injected
      </label>
      <label className="flex min-w-full flex-1 flex-col sm:min-w-72 gap-0.5 text-[11px] uppercase tracking-wide text-fg-muted">
        <span>
          Search <kbd className="rounded border border-line px-1 font-mono normal-case">/</kbd>
        </span>
        <span className="relative flex items-center">
          <Search size={13} className="pointer-events-none absolute left-1.5 text-fg-muted" aria-hidden />
          <input
            id={FILTER_TEXT_ID}
            name="q"
            type="search"
            defaultValue={filters.q ?? ''}
            placeholder="id, error code, session, arguments, output, stderr"
            title="Matches text in the first 64 KiB of the arguments, output, stdout, stderr and error; the start of the session id; and the trace id and tool call id by their last 8 characters or their end (the whole id)"
            className={`${field} w-full pl-6`}
            data-testid="filter-text"
            onKeyDown={(e) => {
              if (e.key === 'Escape') e.currentTarget.blur();
            }}
          />
        </span>
      </label>
      <button
        type="submit"
        className="h-7 rounded border border-line bg-subtle px-2.5 hover:bg-muted"
        data-testid="filter-apply"
      >
        Apply
      </button>
      {(filters.from || filters.to) && (
        <span className="h-7 content-center text-xs text-fg-muted">
          {filters.from && <>from {filters.from} </>}
          {filters.to && <>to {filters.to}</>}
        </span>
      )}
      {hasFilters(filters) && (
        <Link
          href="/"
          className="inline-flex h-7 items-center gap-1 rounded px-2 text-fg-muted hover:bg-muted hover:text-fg"
          data-testid="filter-clear"
        >
          <X size={13} aria-hidden />
          Clear
        </Link>
      )}
    </form>
  );
}
