'use client';

import { Ban, Plus, Search, Trash2, Zap } from 'lucide-react';
import type { RefObject } from 'react';

function Kbd({ children }: { children: string }) {
  return <kbd className="rounded border border-line bg-bg px-1 font-mono text-[11px]">{children}</kbd>;
}

const button =
  'inline-flex items-center gap-1 rounded border border-line bg-bg px-2 py-0.5 text-fg hover:bg-muted disabled:opacity-50';

/**
 * The Faults page's sticky bar: how many rules are active (in the warning colour while any is),
 * the keys, the filter, New rule, Disable all, and Delete all (which asks first, in place).
 */
export function FaultsBar({
  active,
  total,
  enabled,
  filter,
  onFilter,
  filterInput,
  onCreate,
  onDisableAll,
  disabling,
  onDeleteAll,
  deleting,
  confirmingDeleteAll,
  onConfirmDeleteAll,
}: {
  active: number;
  total: number;
  /** Rules switched on (Disable all has something to do). */
  enabled: number;
  filter: string;
  onFilter: (text: string) => void;
  filterInput: RefObject<HTMLInputElement | null>;
  onCreate: () => void;
  onDisableAll: () => void;
  disabling: boolean;
  onDeleteAll: () => void;
  deleting: boolean;
  /** "Delete all" is asking for confirmation (Escape or Keep cancels). */
  confirmingDeleteAll: boolean;
  onConfirmDeleteAll: (asking: boolean) => void;
}) {
  const rules = (n: number) => `${n} ${n === 1 ? 'rule' : 'rules'}`;
  return (
    <div
      className={`sticky top-11 z-20 flex flex-wrap items-center gap-2 rounded border px-2 py-1.5 text-[12px] ${
        active > 0
          ? 'border-orange-300 bg-orange-50 dark:border-orange-800 dark:bg-orange-950/40'
          : 'border-line bg-subtle'
      }`}
      data-testid="faults-bar"
      data-active={active}
    >
      {active > 0 ? (
        <span className="inline-flex items-center gap-1 font-medium text-orange-800 dark:text-orange-300">
          <Zap size={13} aria-hidden />
          {active} of {rules(total)} active: matching calls are being broken on purpose.
        </span>
      ) : (
        <span className="text-fg-muted" data-testid="faults-none-active">
          {total === 0
            ? 'No fault rules: tools run normally.'
            : `No rule is active (${rules(total)}): tools run normally.`}
        </span>
      )}
      <span className="ml-auto flex flex-wrap items-center gap-1.5">
        <span className="hidden text-fg-muted lg:inline">
          <Kbd>n</Kbd> new · <Kbd>/</Kbd> filter · <Kbd>j</Kbd>
          <Kbd>k</Kbd> select · <Kbd>e</Kbd> edit · <Kbd>t</Kbd> on/off · <Kbd>d</Kbd> delete
        </span>
        <span className="relative flex items-center">
          <Search size={12} className="pointer-events-none absolute left-1.5 text-fg-muted" aria-hidden />
          <input
            ref={filterInput}
            type="search"
            value={filter}
            onChange={(e) => onFilter(e.target.value)}
            onKeyDown={(e) => {
              if (e.key !== 'Escape') return;
              // Chrome clears a search field on Escape; here Escape only leaves it, the filter stays.
              e.preventDefault();
              e.currentTarget.blur();
            }}
            placeholder="Filter rules (/)"
            aria-label="Filter rules by name, tool, session or kind"
            className="h-6 w-44 rounded border border-line bg-bg pl-5 pr-1 text-[12px] placeholder:text-fg-muted"
            data-testid="faults-filter"
          />
        </span>
        <button type="button" onClick={onCreate} className={button} data-testid="fault-new" title="New rule (n)">
          <Plus size={13} aria-hidden />
          New rule
        </button>
        <button
          type="button"
          onClick={onDisableAll}
          disabled={enabled === 0 || disabling}
          className={button}
          data-testid="faults-disable-all"
          title="Switch every rule off (they stay, to switch on again)"
        >
          <Ban size={13} aria-hidden />
          Disable all
        </button>
        {confirmingDeleteAll ? (
          <span className="inline-flex items-center gap-1">
            <button
              type="button"
              onClick={onDeleteAll}
              onKeyDown={(e) => e.key === 'Escape' && onConfirmDeleteAll(false)}
              // biome-ignore lint/a11y/noAutofocus: the confirmation is what the user just asked for.
              autoFocus
              className="inline-flex items-center gap-1 rounded border border-red-400 bg-red-50 px-2 py-0.5 font-medium text-red-800 hover:bg-red-100 dark:border-red-800 dark:bg-red-950/50 dark:text-red-300"
              data-testid="faults-reset-confirm"
            >
              <Trash2 size={13} aria-hidden />
              Delete all {total}
            </button>
            <button
              type="button"
              onClick={() => onConfirmDeleteAll(false)}
              className={button}
              data-testid="faults-reset-cancel"
            >
              Keep
            </button>
          </span>
        ) : (
          <button
            type="button"
            onClick={() => onConfirmDeleteAll(true)}
            disabled={total === 0 || deleting}
            className={`${button} hover:text-red-700 dark:hover:text-red-300`}
            data-testid="faults-reset"
            title="Delete every rule (asks first)"
          >
            <Trash2 size={13} aria-hidden />
            Delete all…
          </button>
        )}
      </span>
    </div>
  );
}
