'use client';

import { Pencil, RotateCcw, Trash2, Zap } from 'lucide-react';
import Link from 'next/link';
import { useEffect, useRef } from 'react';
import { paramsSummary } from '@/lib/ui/fault-kinds';
import { type FaultRuleJson, type RuleState, ruleState } from '@/lib/ui/faults';
import { formatRelative } from '@/lib/ui/format';
import { Timestamp } from '../timestamp';

const td = 'px-2 py-1 align-top';
const th = 'px-2 py-1 font-medium';

const STATE_LOOK: Record<RuleState, string> = {
  active:
    'border-orange-300 bg-orange-50 text-orange-800 dark:border-orange-800 dark:bg-orange-950/50 dark:text-orange-300',
  disabled: 'border-line text-fg-muted',
  expired: 'border-line text-fg-muted',
  'used up': 'border-line text-fg-muted',
  inactive: 'border-line text-fg-muted',
};

function Toggle({ rule, pending, onToggle }: { rule: FaultRuleJson; pending: boolean; onToggle: () => void }) {
  return (
    <button
      type="button"
      role="switch"
      aria-checked={rule.enabled}
      aria-label={`${rule.enabled ? 'Disable' : 'Enable'} ${rule.name}`}
      title={`${rule.enabled ? 'Disable' : 'Enable'} (t)`}
      onClick={onToggle}
      disabled={pending}
      className={`relative inline-flex h-4 w-7 shrink-0 items-center rounded-full border transition-colors disabled:opacity-60 ${
        rule.enabled
          ? 'border-orange-600 bg-orange-600 dark:border-orange-500 dark:bg-orange-500'
          : 'border-line bg-muted'
      }`}
      data-testid="fault-toggle"
    >
      <span
        className={`inline-block h-3 w-3 rounded-full bg-white shadow transition-transform dark:bg-bg ${rule.enabled ? 'translate-x-3' : 'translate-x-0.5'}`}
        aria-hidden
      />
    </button>
  );
}

function Hits({ rule, onReset }: { rule: FaultRuleJson; onReset: () => void }) {
  return (
    <span className="inline-flex items-center gap-1">
      {/* The reset keeps its place while hidden: a first hit never moves the column. */}
      <button
        type="button"
        onClick={(event) => {
          event.stopPropagation();
          onReset();
        }}
        className={`rounded p-0.5 text-fg-muted hover:bg-muted hover:text-fg ${rule.hits === 0 ? 'invisible' : ''}`}
        aria-label={`Reset the hits of ${rule.name}`}
        title="Reset the hit counter to 0"
        data-testid="fault-hits-reset"
      >
        <RotateCcw size={11} aria-hidden />
      </button>
      <span className="tabular-nums" data-testid="fault-hits" data-hits={rule.hits}>
        {rule.hits}
        {rule.max_hits !== null && <span className="text-fg-muted"> / {rule.max_hits}</span>}
      </span>
    </span>
  );
}

function Expiry({ rule, now }: { rule: FaultRuleJson; now: number }) {
  if (rule.expires_at === null) return <span className="text-fg-muted">never</span>;
  const ms = Date.parse(rule.expires_at);
  return (
    <span className="whitespace-nowrap">
      <Timestamp ms={ms} /> <span className="text-fg-muted">({ms <= now ? 'expired' : formatRelative(ms, now)})</span>
    </span>
  );
}

/**
 * The rules, newest first, one dense row each: switch, name, target, session, what it does,
 * probability and seed, hits against the maximum, expiry, state, and edit / delete (delete asks
 * first, in the row). Active rows are marked in the warning colour. The selected row (j/k) and
 * the rule named in the URL (`?rule=`, from a trace's fault badge) are highlighted.
 */
export function RulesTable({
  rules,
  now,
  selectedId,
  highlightId,
  confirmingId,
  pendingIds,
  onSelect,
  onToggle,
  onResetHits,
  onEdit,
  onAskDelete,
  onDelete,
  onCancelDelete,
}: {
  rules: FaultRuleJson[];
  now: number;
  selectedId: string | null;
  highlightId: string | null;
  confirmingId: string | null;
  pendingIds: Set<string>;
  onSelect: (id: string) => void;
  onToggle: (rule: FaultRuleJson) => void;
  onResetHits: (rule: FaultRuleJson) => void;
  onEdit: (rule: FaultRuleJson) => void;
  onAskDelete: (rule: FaultRuleJson) => void;
  onDelete: (rule: FaultRuleJson) => void;
  onCancelDelete: () => void;
}) {
  const confirmButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (confirmingId) confirmButton.current?.focus();
  }, [confirmingId]);
  const selectedRow = useRef<HTMLTableRowElement>(null);
  useEffect(() => {
    if (selectedId) selectedRow.current?.scrollIntoView({ block: 'nearest' });
  }, [selectedId]);

  return (
    // relative: the screen-reader-only header text is placed inside the scroller, not far right of the page
    <div className="relative overflow-x-auto rounded border border-line">
      <table className="w-full border-collapse text-left text-[12px]" data-testid="faults-table">
        <caption className="sr-only">Fault rules, newest first</caption>
        <thead className="bg-subtle text-[11px] uppercase tracking-wide text-fg-muted">
          <tr>
            <th scope="col" className={`${th} w-10`}>
              <span className="sr-only">Enabled</span>
            </th>
            <th scope="col" className={th}>
              Name
            </th>
            <th scope="col" className={th}>
              Tool
            </th>
            <th scope="col" className={th}>
              Session
            </th>
            <th scope="col" className={th}>
              Fault
            </th>
            <th scope="col" className={`${th} text-right`}>
              Prob. · seed
            </th>
            <th scope="col" className={`${th} text-right`}>
              Hits
            </th>
            <th scope="col" className={th}>
              Expires
            </th>
            <th scope="col" className={th}>
              State
            </th>
            <th scope="col" className={`${th} w-36`}>
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rules.map((rule) => {
            const state = ruleState(rule, now);
            const selected = rule.id === selectedId;
            const highlighted = rule.id === highlightId;
            const confirming = rule.id === confirmingId;
            return (
              <tr
                key={rule.id}
                ref={selected ? selectedRow : undefined}
                onClick={() => onSelect(rule.id)}
                className={`border-t border-line ${
                  selected ? 'bg-muted' : highlighted ? 'bg-blue-50 dark:bg-blue-950/30' : ''
                }`}
                aria-selected={selected}
                data-testid="fault-row"
                data-rule-id={rule.id}
                data-name={rule.name}
                data-state={state}
                data-enabled={rule.enabled}
              >
                <td
                  className={`${td} pt-1.5 ${state === 'active' ? 'shadow-[inset_3px_0_0_0_var(--color-orange-500)]' : ''}`}
                >
                  <Toggle rule={rule} pending={pendingIds.has(rule.id)} onToggle={() => onToggle(rule)} />
                </td>
                <td className={td}>
                  <div className="font-medium">{rule.name}</div>
                  <div className="font-mono text-[11px] text-fg-muted">{rule.id}</div>
                </td>
                <td className={`${td} font-mono`}>{rule.tool}</td>
                <td className={td}>
                  {rule.session_id ? (
                    <Link
                      href={`/?session=${encodeURIComponent(rule.session_id)}`}
                      className="block max-w-[16rem] truncate font-mono text-accent hover:underline"
                      title={`The calls of session ${rule.session_id}`}
                    >
                      {rule.session_id}
                    </Link>
                  ) : (
                    <span className="text-fg-muted">every session</span>
                  )}
                </td>
                <td className={`${td} min-w-[14rem]`} data-testid="fault-kind-cell">
                  <span className="inline-flex items-center gap-1 font-mono font-medium">
                    <Zap size={11} className="text-fuchsia-600 dark:text-fuchsia-400" aria-hidden />
                    {rule.kind}
                  </span>{' '}
                  <span className="break-words text-fg-muted">{paramsSummary(rule.kind, rule.params)}</span>
                </td>
                <td className={`${td} whitespace-nowrap text-right tabular-nums`}>
                  {rule.probability === 1 ? 'always' : `${Math.round(rule.probability * 1000) / 10}%`}
                  <span className="text-fg-muted"> · {rule.seed ?? '—'}</span>
                </td>
                <td className={`${td} whitespace-nowrap text-right`}>
                  <Hits rule={rule} onReset={() => onResetHits(rule)} />
                </td>
                <td className={td}>
                  <Expiry rule={rule} now={now} />
                </td>
                <td className={td}>
                  <span
                    className={`inline-flex items-center gap-1 whitespace-nowrap rounded border px-1 text-[11px] leading-4 ${STATE_LOOK[state]}`}
                    data-testid="fault-state"
                  >
                    {state === 'active' && <Zap size={10} aria-hidden />}
                    {state}
                  </span>
                </td>
                <td className={`${td} whitespace-nowrap text-right`}>
                  {confirming ? (
                    <span className="inline-flex items-center gap-1">
                      <button
                        ref={confirmButton}
                        type="button"
                        onClick={() => onDelete(rule)}
                        onKeyDown={(e) => e.key === 'Escape' && onCancelDelete()}
                        className="rounded border border-red-400 bg-red-50 px-1.5 text-red-800 hover:bg-red-100 dark:border-red-800 dark:bg-red-950/50 dark:text-red-300"
                        data-testid="fault-delete-confirm"
                      >
                        Delete
                      </button>
                      <button
                        type="button"
                        onClick={onCancelDelete}
                        className="rounded px-1.5 text-fg-muted hover:bg-muted hover:text-fg"
                      >
                        Keep
                      </button>
                    </span>
                  ) : (
                    <span className="inline-flex items-center gap-0.5">
                      <button
                        type="button"
                        onClick={() => onEdit(rule)}
                        className="inline-flex items-center gap-0.5 rounded px-1 text-fg-muted hover:bg-muted hover:text-fg"
                        aria-label={`Edit ${rule.name}`}
                        title="Edit (e)"
                        data-testid="fault-edit"
                      >
                        <Pencil size={12} aria-hidden />
                        Edit
                      </button>
                      <button
                        type="button"
                        onClick={() => onAskDelete(rule)}
                        className="inline-flex items-center gap-0.5 rounded px-1 text-fg-muted hover:bg-muted hover:text-red-700 dark:hover:text-red-300"
                        aria-label={`Delete ${rule.name}`}
                        title="Delete (d)"
                        data-testid="fault-delete"
                      >
                        <Trash2 size={12} aria-hidden />
                        Delete
                      </button>
                    </span>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
