'use client';

import { KeyRound, Plus } from 'lucide-react';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { Role } from '@/lib/access/roles';
import { type CreatedKeyJson, isKeysApiError, type KeyJson } from '@/lib/ui/keys-api';
import { emptyKeyDraft, type KeyDraft, type KeyField, keyBody, keyFieldErrors, sortKeys } from '@/lib/ui/keys-draft';
import { useViewer } from '../access/viewer';
import { isTypingTarget } from '../shortcuts-dialog';
import { KeyForm } from './key-form';
import { KeysTable } from './keys-table';
import { NewKeyToken } from './new-key-token';
import { useKeyMutations, useKeys } from './use-keys';

function Kbd({ children }: { children: string }) {
  return <kbd className="rounded border border-line bg-bg px-1 font-mono text-[11px]">{children}</kbd>;
}

const button =
  'inline-flex items-center gap-1 rounded border border-line bg-bg px-2 py-0.5 text-fg hover:bg-muted disabled:opacity-50';

/**
 * The Keys page: who may use this Toolscope, and as what.
 * 1. The keys are a query (`GET /api/v1/keys`), first rendered by the server, newest first.
 * 2. "New key" (or `n`) opens the form; the server's complaints show at their fields. On success
 *    the token is shown once, above the list, until dismissed.
 * 3. The first key ends local mode: nothing is read again after it (every read would be a 401),
 *    and the token panel offers to log in with it.
 * 4. Revoke asks in the row first; revoking one's own key ends this login, so the page goes to the login.
 */
export function KeysView({ initial, renderedAt }: { initial: KeyJson[]; renderedAt: number }) {
  const viewer = useViewer();
  const localMode = viewer?.localMode ?? false;
  const ownId = viewer?.kind === 'key' ? viewer.id : null;
  const defaultRole: Role = localMode ? 'admin' : 'agent';

  const [created, setCreated] = useState<{ answer: CreatedKeyJson; endedLocalMode: boolean } | null>(null);
  const endedLocalMode = created?.endedLocalMode ?? false;
  const query = useKeys({ initial: { keys: initial }, renderedAt, enabled: !endedLocalMode });
  const keys = useMemo(() => sortKeys(query.data?.keys ?? initial), [query.data, initial]);
  const active = keys.filter((key) => key.revoked_at === null).length;
  const { create, revoke } = useKeyMutations({ endsLocalMode: localMode });

  const [formOpen, setFormOpen] = useState(initial.length === 0 && localMode);
  const [draft, setDraft] = useState<KeyDraft>(() => emptyKeyDraft(defaultRole));
  const [errors, setErrors] = useState<Partial<Record<KeyField, string>>>({});
  const [confirmingId, setConfirmingId] = useState<string | null>(null);
  const [pendingIds, setPendingIds] = useState<ReadonlySet<string>>(() => new Set());
  const [revokeError, setRevokeError] = useState<string | null>(null);
  const firstField = useRef<HTMLInputElement>(null);

  const openForm = useCallback(() => {
    setFormOpen(true);
    requestAnimationFrame(() => firstField.current?.focus());
  }, []);
  const closeForm = useCallback(() => {
    setFormOpen(false);
    setErrors({});
  }, []);

  const submit = () => {
    const body = keyBody(draft);
    create.mutate(body, {
      onSuccess: (answer) => {
        setCreated({ answer, endedLocalMode: localMode });
        setDraft(emptyKeyDraft(defaultRole));
        closeForm();
      },
      onError: (error) =>
        setErrors(
          isKeysApiError(error)
            ? keyFieldErrors(error, body)
            : { other: error instanceof Error ? error.message : String(error) },
        ),
    });
  };

  const runRevoke = (key: KeyJson) => {
    setConfirmingId(null);
    setRevokeError(null);
    setPendingIds((ids) => new Set(ids).add(key.id));
    revoke.mutate(key.id, {
      onSuccess: () => {
        // This login ended with the key: the next page view would be refused anyway.
        if (key.id === ownId) window.location.assign('/login?next=/keys');
      },
      onError: (error) => setRevokeError(`Could not revoke “${key.name}”: ${error.message}`),
      onSettled: () =>
        setPendingIds((ids) => {
          const next = new Set(ids);
          next.delete(key.id);
          return next;
        }),
    });
  };

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.altKey || event.metaKey || event.ctrlKey || event.shiftKey) return;
      if (isTypingTarget(event.target) || document.querySelector('dialog[open]')) return;
      if (event.key === 'n' && !endedLocalMode) {
        event.preventDefault();
        openForm();
      } else if (event.key === 'Escape') {
        setConfirmingId(null);
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [openForm, endedLocalMode]);

  return (
    <div className="flex flex-col gap-3" data-testid="keys-page">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <h1 className="text-base font-semibold">Keys</h1>
        <p className="text-xs text-fg-muted">
          Who may use this Toolscope, and as what: agents send a key as a bearer token, people log in with one. A token
          is shown once, when its key is made; only its hash is kept. Revoking a key refuses its requests at once and
          ends its logins.
        </p>
      </div>

      <div
        className="sticky top-11 z-20 flex flex-wrap items-center gap-2 rounded border border-line bg-subtle px-2 py-1.5 text-[12px]"
        data-testid="keys-bar"
        data-active={active}
      >
        <span className="text-fg-muted" data-testid="keys-count">
          {active} active {active === 1 ? 'key' : 'keys'}
          {keys.length > active ? `, ${keys.length - active} revoked` : ''}
        </span>
        {localMode && !endedLocalMode ? (
          <span className="text-amber-800 dark:text-amber-300" data-testid="keys-local-mode">
            Local mode: no key yet, anyone on this machine is admin.
          </span>
        ) : null}
        <span className="ml-auto flex items-center gap-1.5">
          <span className="hidden text-fg-muted sm:inline">
            <Kbd>n</Kbd> new key
          </span>
          <button
            type="button"
            onClick={openForm}
            disabled={endedLocalMode}
            className={button}
            data-testid="key-new"
            title="New key (n)"
          >
            <Plus size={13} aria-hidden />
            New key
          </button>
        </span>
      </div>

      {created ? (
        <NewKeyToken
          key={created.answer.key.id}
          created={created.answer}
          endedLocalMode={created.endedLocalMode}
          onDismiss={() => setCreated(null)}
        />
      ) : null}

      {formOpen && !endedLocalMode ? (
        <KeyForm
          draft={draft}
          onChange={(next) => {
            setDraft(next);
            setErrors({});
          }}
          errors={errors}
          pending={create.isPending}
          localMode={localMode}
          onSubmit={submit}
          onClose={closeForm}
          firstField={firstField}
        />
      ) : null}

      {revokeError ? (
        <p role="alert" className="text-[12px] text-red-700 dark:text-red-300" data-testid="key-revoke-error">
          {revokeError}
        </p>
      ) : null}

      {keys.length === 0 ? (
        <div
          className="flex flex-col gap-2 rounded border border-dashed border-line px-3 py-3 text-[12px]"
          data-testid="keys-empty"
        >
          <p className="flex items-center gap-1.5 font-medium">
            <KeyRound size={14} className="text-accent" aria-hidden />
            No keys yet.
          </p>
          <p className="text-fg-muted">
            {localMode
              ? 'This Toolscope is in local mode: it listens on this machine only and asks nobody for a key. Make the first key (an admin, to log in with) to require one from every agent and person.'
              : 'Make a key for each agent (role agent) and each person (viewer, reviewer or admin).'}{' '}
            Keys can also be made in a terminal: <code className="font-mono">npm run keys -- create</code>.
          </p>
        </div>
      ) : (
        <KeysTable
          keys={keys}
          ownId={ownId}
          readOnly={endedLocalMode}
          confirmingId={confirmingId}
          pendingIds={pendingIds}
          onAskRevoke={(key) => setConfirmingId(key.id)}
          onRevoke={runRevoke}
          onCancelRevoke={() => setConfirmingId(null)}
        />
      )}
      {query.isError && !endedLocalMode ? (
        <p role="alert" className="text-[12px] text-red-700 dark:text-red-300" data-testid="keys-load-error">
          Could not read the keys again: {query.error.message}. Showing the last known list.
        </p>
      ) : null}
    </div>
  );
}
