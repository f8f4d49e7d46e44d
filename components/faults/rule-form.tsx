'use client';

import { LoaderCircle, Save, TriangleAlert } from 'lucide-react';
import { type FormEvent, type RefObject, useId, useState } from 'react';
import type { FaultKind } from '@/lib/executor/types';
import { FAULT_KIND_NAMES, FAULT_KINDS } from '@/lib/ui/fault-kinds';
import type { FaultRuleJson } from '@/lib/ui/faults';
import { errorProps, Field, FormTitleBar, invalid } from '../form-parts';
import { Timestamp } from '../timestamp';
import { EXPIRY_CHOICES, type ExpiryChoice, type FaultDraft, type FaultTool, failFirstWarning } from './fault-draft';
import { field, ParamInput } from './rule-form-fields';

/**
 * Creates or edits one fault rule: name, target tool (name or glob), optional session, kind with
 * its parameters, probability and seed, maximum hits, expiry, enabled. The server is the one
 * validator: its 400 names fields, and each complaint is shown at its field (`errors`). Escape
 * closes the form.
 */
export function RuleForm({
  draft,
  onChange,
  editing,
  tools,
  errors,
  pending,
  onSubmit,
  onClose,
  firstField,
}: {
  draft: FaultDraft;
  onChange: (change: (draft: FaultDraft) => FaultDraft) => void;
  /** The rule being edited; null for a new one. */
  editing: FaultRuleJson | null;
  /** The registered tools: suggestions for the target, and what a `fail_first` rule can do to them. */
  tools: FaultTool[];
  /** The server's complaints by form field (`params.n`, `tool`, `other`…). */
  errors: Record<string, string>;
  pending: boolean;
  onSubmit: () => void;
  onClose: () => void;
  firstField: RefObject<HTMLInputElement | null>;
}) {
  const ids = useId();
  const id = (name: string) => `${ids}--${name}`;
  const set = <K extends keyof FaultDraft>(key: K, value: FaultDraft[K]) =>
    onChange((current) => ({ ...current, [key]: value }));
  const setParam = (key: string, value: string | boolean) =>
    onChange((current) => ({
      ...current,
      params: { ...current.params, [current.kind]: { ...current.params[current.kind], [key]: value } },
    }));
  const kind = FAULT_KINDS[draft.kind];
  const typed = draft.params[draft.kind] ?? {};
  const [showMore, setShowMore] = useState(
    () => draft.seed !== '' || draft.maxHits !== '' || draft.probability !== '1' || draft.session !== '',
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!pending) onSubmit();
  };
  const paramsError = errors.params;
  const warning = failFirstWarning(draft, tools);
  // A complaint about a field that is folded away unfolds it.
  const more = showMore || Boolean(errors.session || errors.probability || errors.seed || errors.maxHits);

  return (
    <form
      onSubmit={submit}
      onKeyDown={(event) => {
        if (event.key !== 'Escape') return;
        event.preventDefault();
        onClose();
      }}
      className="flex flex-col gap-2 rounded border border-line bg-subtle p-2"
      aria-labelledby={`${ids}-title`}
      data-testid="fault-form"
      data-mode={editing ? 'edit' : 'create'}
      noValidate
    >
      <FormTitleBar
        titleId={`${ids}-title`}
        title={
          editing ? (
            <>
              Edit rule <span className="font-mono normal-case text-fg">{editing.name}</span>
            </>
          ) : (
            'New fault rule'
          )
        }
        submitVerb="save"
        onClose={onClose}
      />

      <div className="flex flex-wrap items-start gap-2">
        <Field label="Name" error={errors.name} id={id('name')} errorTestId="fault-error-name" className="w-48">
          <input
            ref={firstField}
            value={draft.name}
            onChange={(e) => set('name', e.target.value)}
            placeholder="flaky search"
            className={`${field} font-sans ${errors.name ? invalid : ''}`}
            data-testid="fault-name"
            autoComplete="off"
            {...errorProps(id('name'), errors.name)}
          />
        </Field>
        <Field
          label="Tool (name or glob)"
          error={errors.tool}
          id={id('tool')}
          errorTestId="fault-error-tool"
          className="w-44"
        >
          <input
            value={draft.tool}
            onChange={(e) => set('tool', e.target.value)}
            placeholder="http_*"
            list={`${ids}-tools`}
            className={`${field} ${errors.tool ? invalid : ''}`}
            data-testid="fault-tool"
            spellCheck={false}
            autoComplete="off"
            {...errorProps(id('tool'), errors.tool)}
          />
          <datalist id={`${ids}-tools`}>
            {tools.map((tool) => (
              <option key={tool.name} value={tool.name} />
            ))}
          </datalist>
        </Field>
        <Field label="Kind" error={errors.kind} id={id('kind')} errorTestId="fault-error-kind">
          <select
            value={draft.kind}
            onChange={(e) => set('kind', e.target.value as FaultKind)}
            className={`${field} ${errors.kind ? invalid : ''}`}
            data-testid="fault-kind"
            {...errorProps(id('kind'), errors.kind)}
          >
            {FAULT_KIND_NAMES.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </Field>
        {kind.fields.map((param) => (
          <ParamInput
            key={`${draft.kind}-${param.key}`}
            param={param}
            value={typed[param.key]}
            error={errors[`params.${param.key}`]}
            id={id(`params.${param.key}`)}
            onChange={(value) => setParam(param.key, value)}
          />
        ))}
        <Field label="Expires" error={errors.expiry} id={id('expiry')} errorTestId="fault-error-expiry">
          <select
            value={draft.expiry}
            onChange={(e) => set('expiry', e.target.value as ExpiryChoice)}
            className={`${field} font-sans ${errors.expiry ? invalid : ''}`}
            data-testid="fault-expiry"
            {...errorProps(id('expiry'), errors.expiry)}
          >
            {Object.entries(EXPIRY_CHOICES)
              .filter(([key]) => key !== 'keep' || editing?.expires_at)
              .map(([key, choice]) => (
                <option key={key} value={key}>
                  {choice.label}
                </option>
              ))}
          </select>
        </Field>
        <label className="mt-[15px] flex h-7 items-center gap-1.5 text-[12px]">
          <input
            type="checkbox"
            checked={draft.enabled}
            onChange={(e) => set('enabled', e.target.checked)}
            data-testid="fault-enabled"
          />
          Enabled
        </label>
      </div>
      <p className="text-[12px] text-fg-muted" data-testid="fault-kind-help">
        <span className="font-mono text-fg">{draft.kind}</span>: {kind.help}
        {draft.expiry === 'keep' && editing?.expires_at ? (
          <>
            {' '}
            Expires at <Timestamp ms={Date.parse(editing.expires_at)} full />.
          </>
        ) : null}
      </p>
      {warning ? (
        <p
          className="flex items-start gap-1 text-[12px] text-amber-800 dark:text-amber-300"
          data-testid="fault-warning"
        >
          <TriangleAlert size={13} className="mt-0.5 shrink-0" aria-hidden />
          {warning}
        </p>
      ) : null}
      {paramsError ? (
        <p role="alert" className="text-[12px] text-red-700 dark:text-red-300" data-testid="fault-error-params">
          {paramsError}
        </p>
      ) : null}

      {more ? (
        <div className="flex flex-wrap items-start gap-2" data-testid="fault-more">
          <Field
            label="Session (optional)"
            error={errors.session}
            id={id('session')}
            errorTestId="fault-error-session"
            className="w-64"
          >
            <input
              value={draft.session}
              onChange={(e) => set('session', e.target.value)}
              placeholder="every session"
              className={`${field} ${errors.session ? invalid : ''}`}
              data-testid="fault-session"
              spellCheck={false}
              autoComplete="off"
              {...errorProps(id('session'), errors.session)}
            />
          </Field>
          <Field
            label="Probability (0–1)"
            error={errors.probability}
            id={id('probability')}
            errorTestId="fault-error-probability"
          >
            <input
              value={draft.probability}
              onChange={(e) => set('probability', e.target.value)}
              inputMode="decimal"
              className={`${field} w-24 ${errors.probability ? invalid : ''}`}
              data-testid="fault-probability"
              autoComplete="off"
              {...errorProps(id('probability'), errors.probability)}
            />
          </Field>
          <Field label="Seed (blank: random)" error={errors.seed} id={id('seed')} errorTestId="fault-error-seed">
            <input
              value={draft.seed}
              onChange={(e) => set('seed', e.target.value)}
              inputMode="numeric"
              placeholder="random"
              className={`${field} w-28 ${errors.seed ? invalid : ''}`}
              data-testid="fault-seed"
              autoComplete="off"
              {...errorProps(id('seed'), errors.seed)}
            />
          </Field>
          <Field
            label="Max hits (blank: no limit)"
            error={errors.maxHits}
            id={id('maxHits')}
            errorTestId="fault-error-maxHits"
          >
            <input
              value={draft.maxHits}
              onChange={(e) => set('maxHits', e.target.value)}
              inputMode="numeric"
              placeholder="no limit"
              className={`${field} w-28 ${errors.maxHits ? invalid : ''}`}
              data-testid="fault-max-hits"
              autoComplete="off"
              {...errorProps(id('maxHits'), errors.maxHits)}
            />
          </Field>
          <p className="mt-[15px] max-w-md text-[12px] leading-snug text-fg-muted">
            Same seed and same calls ⇒ same faults. Changing the seed restarts the draws.
          </p>
        </div>
      ) : (
        <button
          type="button"
          onClick={() => setShowMore(true)}
          className="w-fit text-[12px] text-accent hover:underline"
          data-testid="fault-more-toggle"
        >
          Session, probability, seed, max hits…
        </button>
      )}

      <div className="flex items-center gap-2">
        <button
          type="submit"
          disabled={pending}
          className="inline-flex items-center gap-1 rounded border border-accent bg-accent px-2 py-0.5 font-medium text-white hover:opacity-90 disabled:opacity-60 dark:text-bg"
          data-testid="fault-save"
        >
          {pending ? <LoaderCircle size={13} className="animate-spin" aria-hidden /> : <Save size={13} aria-hidden />}
          {editing ? 'Save changes' : 'Create rule'}
        </button>
        <button
          type="button"
          onClick={onClose}
          className="rounded border border-line bg-bg px-2 py-0.5 hover:bg-muted"
          data-testid="fault-cancel"
        >
          Cancel
        </button>
        {errors.other ? (
          <p role="alert" className="text-[12px] text-red-700 dark:text-red-300" data-testid="fault-error-other">
            {errors.other}
          </p>
        ) : null}
      </div>
    </form>
  );
}
