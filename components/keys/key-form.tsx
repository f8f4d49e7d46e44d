'use client';

import { KeyRound, LoaderCircle, TriangleAlert } from 'lucide-react';
import { type FormEvent, type RefObject, useId } from 'react';
import { ROLES, type Role } from '@/lib/access/roles';
import { type KeyDraft, type KeyField, RULE_LISTS } from '@/lib/ui/keys-draft';
import { ROLE_HELP } from '../access/role-badge';
import { errorProps, Field, FormTitleBar, invalid } from '../form-parts';

const field =
  'rounded border border-line bg-bg px-1.5 font-mono text-[12px] outline-none focus:border-accent disabled:opacity-60';

const RULE_PLACEHOLDER: Record<(typeof RULE_LISTS)[number], string> = {
  allow: 'write_file(notes/**)',
  ask: 'http_get(*.example.com)',
  deny: 'run_shell',
};

/**
 * The New key form: name, role, and an optional scope — the tools it may call and its own
 * allow / ask / deny rules, one per line. The server is the one validator: each of its complaints
 * is shown at the field it names. In local mode it says that this first key ends local mode, and
 * warns when that key could not log in. Enter (Ctrl+Enter in a rule list) creates; Escape closes.
 */
export function KeyForm({
  draft,
  onChange,
  errors,
  pending,
  localMode,
  onSubmit,
  onClose,
  firstField,
}: {
  draft: KeyDraft;
  onChange: (draft: KeyDraft) => void;
  errors: Partial<Record<KeyField, string>>;
  pending: boolean;
  /** No key exists yet: this one ends local mode. */
  localMode: boolean;
  onSubmit: () => void;
  onClose: () => void;
  firstField: RefObject<HTMLInputElement | null>;
}) {
  const ids = useId();
  const id = (name: KeyField) => `${ids}-${name}`;
  const set = <K extends keyof KeyDraft>(key: K, value: KeyDraft[K]) => onChange({ ...draft, [key]: value });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!pending) onSubmit();
  };

  return (
    <form
      onSubmit={submit}
      onKeyDown={(event) => {
        if (event.key === 'Escape') {
          event.preventDefault();
          onClose();
        } else if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
          event.preventDefault();
          if (!pending) onSubmit();
        }
      }}
      className="flex flex-col gap-2 rounded border border-line bg-subtle p-2"
      aria-labelledby={`${ids}-title`}
      data-testid="key-form"
      noValidate
    >
      <FormTitleBar titleId={`${ids}-title`} title="New key" submitVerb="create" onClose={onClose} />

      <div className="flex flex-wrap items-start gap-2">
        <Field label="Name" error={errors.name} id={id('name')} errorTestId="key-error-name" className="w-48">
          <input
            ref={firstField}
            value={draft.name}
            onChange={(e) => set('name', e.target.value)}
            placeholder="ci-agent"
            maxLength={64}
            className={`${field} h-7 font-sans ${errors.name ? invalid : ''}`}
            data-testid="key-name"
            autoComplete="off"
            spellCheck={false}
            {...errorProps(id('name'), errors.name)}
          />
        </Field>
        <Field label="Role" error={errors.role} id={id('role')} errorTestId="key-error-role">
          <select
            value={draft.role}
            onChange={(e) => set('role', e.target.value as Role)}
            className={`${field} h-7 font-sans ${errors.role ? invalid : ''}`}
            data-testid="key-role"
            {...errorProps(id('role'), errors.role)}
          >
            {ROLES.map((role) => (
              <option key={role} value={role}>
                {role}
              </option>
            ))}
          </select>
        </Field>
        <Field
          label="Tools (optional, comma-separated names or globs)"
          error={errors.tools}
          id={id('tools')}
          errorTestId="key-error-tools"
          className="min-w-[16rem] flex-1 sm:max-w-md"
        >
          <input
            value={draft.tools}
            onChange={(e) => set('tools', e.target.value)}
            placeholder="every tool"
            className={`${field} h-7 ${errors.tools ? invalid : ''}`}
            data-testid="key-tools"
            autoComplete="off"
            spellCheck={false}
            {...errorProps(id('tools'), errors.tools)}
          />
        </Field>
      </div>
      <p className="text-[12px] text-fg-muted" data-testid="key-role-help">
        {ROLE_HELP[draft.role]}.
      </p>

      <div className="grid gap-2 md:grid-cols-3">
        {RULE_LISTS.map((list) => (
          <Field
            key={list}
            label={
              <>
                <span className="font-mono text-fg">{list}</span> rules (optional, one per line)
              </>
            }
            error={errors[list]}
            id={id(list)}
            errorTestId={`key-error-${list}`}
          >
            <textarea
              value={draft[list]}
              onChange={(e) => set(list, e.target.value)}
              placeholder={RULE_PLACEHOLDER[list]}
              rows={2}
              className={`${field} resize-y py-1 leading-snug ${errors[list] ? invalid : ''}`}
              data-testid={`key-${list}`}
              spellCheck={false}
              {...errorProps(id(list), errors[list])}
            />
          </Field>
        ))}
      </div>
      <p className="text-[12px] leading-snug text-fg-muted">
        A key's rules are weighed with the global ones: deny anywhere wins, then ask, then allow. They can narrow what
        its agent may do, or allow what the defaults would ask about — never what a global rule asks about or denies.
        Scope and role are fixed: to change them, create another key and revoke this one.
      </p>

      {localMode ? (
        <p
          className="flex items-start gap-1.5 rounded border border-amber-300 bg-amber-50 px-2 py-1 text-[12px] text-amber-900 dark:border-amber-700 dark:bg-amber-950/40 dark:text-amber-200"
          data-testid="key-local-mode-note"
        >
          <KeyRound size={13} className="mt-0.5 shrink-0" aria-hidden />
          <span>
            This is the first key: creating it <strong>ends local mode</strong>. From the next request on, every request
            needs a key — this browser too, so you will log in with this one.
          </span>
        </p>
      ) : null}
      {localMode && draft.role === 'agent' ? (
        <p
          role="alert"
          className="flex items-start gap-1.5 rounded border border-red-300 bg-red-50 px-2 py-1 text-[12px] text-red-800 dark:border-red-800 dark:bg-red-950/50 dark:text-red-300"
          data-testid="key-agent-first-warning"
        >
          <TriangleAlert size={13} className="mt-0.5 shrink-0" aria-hidden />
          <span>
            An agent key cannot log in to these pages: with it as the only key, nobody could use them until an admin key
            is made with <code className="font-mono">npm run keys -- create --name &lt;name&gt; --role admin</code>.
            Make the first key an admin.
          </span>
        </p>
      ) : null}

      <div className="flex flex-wrap items-center gap-2">
        <button
          type="submit"
          disabled={pending}
          className="inline-flex items-center gap-1 rounded border border-accent bg-accent px-2 py-0.5 text-[12px] font-medium text-white hover:opacity-90 disabled:opacity-60 dark:text-bg"
          data-testid="key-create"
        >
          {pending ? (
            <LoaderCircle size={13} className="animate-spin" aria-hidden />
          ) : (
            <KeyRound size={13} aria-hidden />
          )}
          Create key
        </button>
        <button
          type="button"
          onClick={onClose}
          className="rounded border border-line bg-bg px-2 py-0.5 text-[12px] hover:bg-muted"
        >
          Cancel
        </button>
        {errors.other ? (
          <p
            role="alert"
            className="whitespace-pre-line text-[12px] text-red-700 dark:text-red-300"
            data-testid="key-error-other"
          >
            {errors.other}
          </p>
        ) : null}
      </div>
    </form>
  );
}
