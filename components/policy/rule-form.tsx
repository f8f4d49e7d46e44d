'use client';

import { LoaderCircle, Plus } from 'lucide-react';
import { type FormEvent, type RefObject, useId, useState } from 'react';
import { SideEffectLabel } from '../tools/policy-badge';
import { isPolicyApiError, previewPolicy } from './policy-api';
import { errorsByRule, type FieldErrors, LISTS, type RuleBody } from './policy-draft';
import { type PolicyToolInfo, ruleText, specifierExample } from './specifier';

const field =
  'rounded border border-line bg-bg px-1.5 py-1 font-mono text-[12px] outline-none focus:border-accent disabled:opacity-60';
const invalid = 'border-red-500 dark:border-red-500';

function FieldError({ id, message, testId }: { id: string; message: string | undefined; testId: string }) {
  if (!message) return null;
  return (
    <p id={id} role="alert" className="text-[12px] text-red-700 dark:text-red-300" data-testid={testId}>
      {message}
    </p>
  );
}

/**
 * Adds one rule to the draft: list, tool, specifier (with what the tool's specifier matches),
 * optional session. The rule is checked by the server first (the preview endpoint compiles it
 * against the tools), and its field errors are shown at the field; a good rule joins the draft.
 * Escape clears the form.
 */
export function RuleForm({
  tools,
  onAdd,
  firstField,
}: {
  tools: PolicyToolInfo[];
  onAdd: (rule: RuleBody) => void;
  firstField: RefObject<HTMLSelectElement | null>;
}) {
  const ids = useId();
  const [list, setList] = useState<RuleBody['list']>('allow');
  const [toolName, setToolName] = useState(tools[0]?.name ?? '');
  const [specifier, setSpecifier] = useState('');
  const [session, setSession] = useState('');
  const [errors, setErrors] = useState<FieldErrors>({});
  const [checking, setChecking] = useState(false);
  const tool = tools.find((t) => t.name === toolName);
  const takesSpecifier = Boolean(tool?.specifier);
  const text = ruleText(toolName, takesSpecifier ? specifier : '');

  const reset = () => {
    setSpecifier('');
    setSession('');
    setErrors({});
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!tool || checking) return;
    const rule: RuleBody = { list, rule: text, session: session.trim() === '' ? null : session.trim() };
    setChecking(true);
    try {
      await previewPolicy([rule]);
      onAdd(rule);
      reset();
    } catch (error) {
      if (isPolicyApiError(error) && error.errors.length > 0) {
        const found = errorsByRule(error.errors);
        setErrors({ ...found.get(0), other: found.get(-1)?.other });
      } else {
        setErrors({ other: error instanceof Error ? error.message : String(error) });
      }
    } finally {
      setChecking(false);
    }
  };

  return (
    <form
      onSubmit={submit}
      onKeyDown={(event) => {
        if (event.key !== 'Escape') return;
        event.preventDefault();
        reset();
        (document.activeElement as HTMLElement | null)?.blur();
      }}
      className="flex flex-col gap-1.5 rounded border border-line bg-subtle p-2"
      aria-labelledby={`${ids}-title`}
      data-testid="rule-form"
    >
      <h2 id={`${ids}-title`} className="text-[11px] font-semibold uppercase tracking-wide text-fg-muted">
        Add a rule <kbd className="ml-1 rounded border border-line bg-bg px-1 font-mono normal-case">n</kbd>
      </h2>
      <div className="flex flex-wrap items-start gap-2">
        <label className="flex flex-col gap-0.5 text-[11px] text-fg-muted">
          List
          <select
            ref={firstField}
            value={list}
            onChange={(e) => setList(e.target.value as RuleBody['list'])}
            className={field}
            data-testid="rule-list"
          >
            {LISTS.map((l) => (
              <option key={l} value={l}>
                {l}
              </option>
            ))}
          </select>
        </label>
        <label className="flex flex-col gap-0.5 text-[11px] text-fg-muted">
          Tool
          <select
            value={toolName}
            onChange={(e) => {
              setToolName(e.target.value);
              setErrors({});
            }}
            className={field}
            data-testid="rule-tool"
          >
            {tools.map((t) => (
              <option key={t.name} value={t.name}>
                {t.name}
              </option>
            ))}
          </select>
        </label>
        <label className="flex min-w-[12rem] flex-1 flex-col gap-0.5 text-[11px] text-fg-muted">
          Specifier {takesSpecifier ? '(blank: every call)' : ''}
          <input
            value={takesSpecifier ? specifier : ''}
            onChange={(e) => {
              setSpecifier(e.target.value);
              setErrors((x) => ({ ...x, rule: undefined }));
            }}
            disabled={!takesSpecifier}
            placeholder={takesSpecifier ? specifierExample(tool?.specifier ?? null) : 'tool-wide rules only'}
            aria-invalid={Boolean(errors.rule)}
            aria-describedby={`${ids}-spec-help ${ids}-spec-error`}
            className={`${field} ${errors.rule ? invalid : ''}`}
            data-testid="rule-specifier"
            spellCheck={false}
            autoComplete="off"
          />
        </label>
        <label className="flex w-36 flex-col gap-0.5 text-[11px] text-fg-muted">
          Session (optional)
          <input
            value={session}
            onChange={(e) => {
              setSession(e.target.value);
              setErrors((x) => ({ ...x, session: undefined }));
            }}
            placeholder="every session"
            aria-invalid={Boolean(errors.session)}
            aria-describedby={`${ids}-session-error`}
            className={`${field} ${errors.session ? invalid : ''}`}
            data-testid="rule-session"
            spellCheck={false}
            autoComplete="off"
          />
        </label>
        <button
          type="submit"
          disabled={checking || !tool}
          className="mt-[15px] inline-flex items-center gap-1 rounded border border-line bg-bg px-2 py-1 hover:bg-muted disabled:opacity-60"
          data-testid="rule-add"
        >
          {checking ? <LoaderCircle size={13} className="animate-spin" aria-hidden /> : <Plus size={13} aria-hidden />}
          Add to draft
        </button>
      </div>
      <p id={`${ids}-spec-help`} className="text-[12px] text-fg-muted" data-testid="rule-specifier-help">
        {tool ? (
          <>
            <span className="font-mono text-fg">{tool.name}</span> <SideEffectLabel effect={tool.sideEffect} />
            {' · '}
            {tool.specifier
              ? `specifier: ${tool.specifier}.`
              : 'takes no specifier: the rule covers every call of the tool.'}{' '}
            Rule: <code className="font-mono text-fg">{`${list} ${text}`}</code>
            {session.trim() ? <span className="font-mono"> [session {session.trim()}]</span> : null}
          </>
        ) : (
          'No tools are registered.'
        )}
      </p>
      <FieldError id={`${ids}-spec-error`} message={errors.rule} testId="rule-specifier-error" />
      <FieldError id={`${ids}-session-error`} message={errors.session} testId="rule-session-error" />
      <FieldError id={`${ids}-other-error`} message={errors.other} testId="rule-form-error" />
    </form>
  );
}
