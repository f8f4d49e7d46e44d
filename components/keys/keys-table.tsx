'use client';

import { Ban } from 'lucide-react';
import Link from 'next/link';
import { useEffect, useRef } from 'react';
import type { KeyJson } from '@/lib/ui/keys-api';
import { keyScope, RULE_LISTS } from '@/lib/ui/keys-draft';
import { RoleBadge } from '../access/role-badge';
import { RelativeTime } from './relative-time';

// On a phone each row wraps into a small card (name, role, state, Revoke; then last use and scope): no sideways scroll.
const td = 'px-2 py-1 align-top max-sm:px-0 max-sm:py-0';
const th = 'px-2 py-1 font-medium';

/** What the key is limited to: its tools and its rule counts, the lists themselves on hover. */
function Scope({ keyJson }: { keyJson: KeyJson }) {
  const scope = keyScope(keyJson);
  if (!scope) return <span className="text-fg-muted">every tool, global rules</span>;
  const rules = scope.rules ? RULE_LISTS.filter((list) => (scope.rules?.[list].length ?? 0) > 0) : [];
  return (
    <span className="inline-flex flex-wrap items-center gap-x-2 gap-y-0.5" data-testid="key-scope">
      {scope.tools ? (
        <span title={scope.tools.join('\n')} data-testid="key-scope-tools" data-count={scope.tools.length}>
          {scope.tools.length === 1 ? (
            <span className="font-mono">{scope.tools[0]}</span>
          ) : (
            <>
              <span className="tabular-nums">{scope.tools.length}</span> tools
            </>
          )}
        </span>
      ) : null}
      {rules.map((list) => (
        <span
          key={list}
          title={scope.rules?.[list].join('\n')}
          className="whitespace-nowrap"
          data-testid={`key-scope-${list}`}
          data-count={scope.rules?.[list].length}
        >
          <span className="tabular-nums">{scope.rules?.[list].length}</span>{' '}
          <span className="font-mono text-fg-muted">{list}</span>
        </span>
      ))}
      {scope.tools === null && rules.length === 0 ? <span className="text-fg-muted">no rules</span> : null}
    </span>
  );
}

/**
 * The keys, newest first, one dense row each: name and id, role, created, last used, state,
 * scope, and Revoke, which asks first in the row (Escape or Keep cancels). Revoked keys stay,
 * dimmed. Revoking the viewer's own key says that it ends this login too.
 */
export function KeysTable({
  keys,
  ownId,
  readOnly,
  confirmingId,
  pendingIds,
  onAskRevoke,
  onRevoke,
  onCancelRevoke,
}: {
  keys: KeyJson[];
  /** The key the viewer is logged in with, if any. */
  ownId: string | null;
  /** No Revoke: this browser has no key (the first key just ended local mode). */
  readOnly: boolean;
  confirmingId: string | null;
  pendingIds: ReadonlySet<string>;
  onAskRevoke: (key: KeyJson) => void;
  onRevoke: (key: KeyJson) => void;
  onCancelRevoke: () => void;
}) {
  const confirmButton = useRef<HTMLButtonElement>(null);
  const table = useRef<HTMLTableElement>(null);
  const asked = useRef<string | null>(null);
  useEffect(() => {
    if (confirmingId) confirmButton.current?.focus();
    // Kept (Escape or Keep): focus goes back to the row's Revoke, not to the top of the page.
    else if (asked.current && table.current?.contains(document.activeElement ?? null) !== true) {
      table.current
        ?.querySelector<HTMLButtonElement>(`tr[data-key-id="${CSS.escape(asked.current)}"] [data-testid="key-revoke"]`)
        ?.focus();
    }
    asked.current = confirmingId;
  }, [confirmingId]);

  return (
    <div className="relative overflow-x-auto rounded border border-line">
      <table ref={table} className="w-full border-collapse text-left text-[12px] max-sm:block" data-testid="keys-table">
        <caption className="sr-only">Keys, newest first</caption>
        <thead className="bg-subtle text-[11px] uppercase tracking-wide text-fg-muted max-sm:hidden">
          <tr>
            <th scope="col" className={th}>
              Name
            </th>
            <th scope="col" className={th}>
              Role
            </th>
            <th scope="col" className={`${th} hidden sm:table-cell`}>
              Created
            </th>
            <th scope="col" className={th}>
              Last used
            </th>
            <th scope="col" className={th}>
              State
            </th>
            <th scope="col" className={th}>
              Scope
            </th>
            <th scope="col" className={`${th} w-32`}>
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody className="max-sm:block">
          {keys.map((key) => {
            const revoked = key.revoked_at !== null;
            const own = key.id === ownId;
            const confirming = key.id === confirmingId;
            return (
              <tr
                key={key.id}
                className={`border-t border-line max-sm:flex max-sm:flex-wrap max-sm:items-start max-sm:gap-x-2 max-sm:gap-y-1 max-sm:px-2 max-sm:py-1.5 ${revoked ? 'text-fg-muted opacity-60' : ''} ${confirming ? 'bg-red-50/60 dark:bg-red-950/20' : ''}`}
                data-testid="key-row"
                data-key-id={key.id}
                data-name={key.name}
                data-state={revoked ? 'revoked' : 'active'}
              >
                <td className={td}>
                  <div className="font-medium">
                    {key.name}
                    {own ? (
                      <span className="ml-1.5 rounded border border-line px-1 text-[10px] font-normal text-fg-muted">
                        you
                      </span>
                    ) : null}
                  </div>
                  <Link
                    href={`/audit?target=${encodeURIComponent(key.id)}`}
                    className="font-mono text-[11px] text-fg-muted hover:text-accent hover:underline"
                    title="What was done to this key (audit trail)"
                  >
                    {key.id}
                  </Link>
                </td>
                <td className={td}>
                  <RoleBadge role={key.role} />
                </td>
                <td className={`${td} hidden sm:table-cell`}>
                  <RelativeTime iso={key.created_at} />
                </td>
                <td className={`${td} max-sm:order-2`} data-testid="key-last-used">
                  <span className="text-fg-muted sm:hidden">used </span>
                  {key.last_used_at ? (
                    <RelativeTime iso={key.last_used_at} />
                  ) : (
                    <span className="text-fg-muted">never</span>
                  )}
                </td>
                <td className={td}>
                  {revoked ? (
                    <span className="inline-flex items-center gap-1 whitespace-nowrap" data-testid="key-state">
                      <span className="rounded border border-line px-1 text-[11px] leading-4 line-through">
                        revoked
                      </span>
                      <RelativeTime iso={key.revoked_at as string} />
                    </span>
                  ) : (
                    <span
                      className="rounded border border-emerald-300 bg-emerald-50 px-1 text-[11px] leading-4 text-emerald-800 dark:border-emerald-800 dark:bg-emerald-950/40 dark:text-emerald-300"
                      data-testid="key-state"
                    >
                      active
                    </span>
                  )}
                </td>
                <td className={`${td} min-w-[9rem] max-sm:order-2 max-sm:min-w-0`}>
                  <Scope keyJson={key} />
                </td>
                {/* On a phone: the break between the card's two lines. */}
                <td className="hidden max-sm:order-1 max-sm:block max-sm:basis-full" aria-hidden />
                <td className={`${td} whitespace-nowrap text-right max-sm:ml-auto`}>
                  {revoked || readOnly ? null : confirming ? (
                    <span className="inline-flex items-center gap-1">
                      {own ? (
                        <span className="text-[11px] text-red-700 dark:text-red-300">ends your login ·</span>
                      ) : null}
                      <button
                        ref={confirmButton}
                        type="button"
                        onClick={() => onRevoke(key)}
                        onKeyDown={(e) => e.key === 'Escape' && onCancelRevoke()}
                        className="rounded border border-red-400 bg-red-50 px-1.5 font-medium text-red-800 hover:bg-red-100 dark:border-red-800 dark:bg-red-950/50 dark:text-red-300"
                        data-testid="key-revoke-confirm"
                      >
                        Revoke now
                      </button>
                      <button
                        type="button"
                        onClick={onCancelRevoke}
                        onKeyDown={(e) => e.key === 'Escape' && onCancelRevoke()}
                        className="rounded px-1.5 text-fg-muted hover:bg-muted hover:text-fg"
                        data-testid="key-revoke-cancel"
                      >
                        Keep
                      </button>
                    </span>
                  ) : (
                    <button
                      type="button"
                      onClick={() => onAskRevoke(key)}
                      disabled={pendingIds.has(key.id)}
                      className="inline-flex items-center gap-0.5 rounded px-1 text-fg-muted hover:bg-muted hover:text-red-700 disabled:opacity-50 dark:hover:text-red-300"
                      aria-label={`Revoke ${key.name}`}
                      title="Revoke: its requests get 401 at once, its logins end (asks first)"
                      data-testid="key-revoke"
                    >
                      <Ban size={12} aria-hidden />
                      Revoke
                    </button>
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
