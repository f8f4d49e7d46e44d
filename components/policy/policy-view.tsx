'use client';

import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { LoaderCircle, Save, Undo2 } from 'lucide-react';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { isTypingTarget } from '../shortcuts-dialog';
import { fetchPolicy, isPolicyApiError, previewPolicy, putPolicy } from './policy-api';
import {
  applyEdits,
  type DraftEdits,
  type DraftRule,
  draftFrom,
  errorsByRule,
  type FieldErrors,
  NO_EDITS,
  type PolicyJson,
  type RuleBody,
  removeRule,
  restoreRule,
  rulesBody,
} from './policy-draft';
import { PreviewPanel } from './preview-panel';
import { RuleForm } from './rule-form';
import { RuleLists } from './rule-lists';
import type { PolicyToolInfo } from './specifier';
import { ToolDefaults } from './tool-defaults';

/** The draft is previewed once edits pause this long. */
const PREVIEW_DEBOUNCE_MS = 300;
/** Rules change elsewhere too ("Always allow" on the approvals page, the API): read them again this often. */
const POLICY_POLL_MS = 5_000;
const POLICY_KEY = ['policy'] as const;

function useDebounced<T>(value: T, ms: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return debounced;
}

function Kbd({ children }: { children: string }) {
  return <kbd className="rounded border border-line bg-subtle px-1 font-mono text-[11px]">{children}</kbd>;
}

/**
 * The Policy page: the rules in force, a draft of the data folder's rules, and its preview.
 * 1. The rules are a query (`GET /api/v1/policy`), first rendered by the server, read again
 *    every few seconds and on focus, so a rule made by "Always allow" or the API shows up.
 * 2. Edits (rules added, data rules removed) make a draft on top of the data rules as the server
 *    has them now (config rules are read-only), so a rule made meanwhile elsewhere survives a save.
 *    While there is a draft, a query keyed on it (debounced) asks the server how it would have
 *    decided the last 1,000 recorded calls.
 * 3. Save is a mutation (`PUT`) whose answer becomes the rules query's data; its field errors are
 *    shown at the rules they name. Discard drops the draft.
 * 4. Keys: `n` focuses the new-rule form, `s` or Ctrl/Cmd+S saves a draft, Escape clears the form.
 */
export function PolicyView({
  initial,
  tools,
  renderedAt,
}: {
  initial: PolicyJson;
  tools: PolicyToolInfo[];
  renderedAt: number;
}) {
  const queryClient = useQueryClient();
  const policyQuery = useQuery({
    queryKey: POLICY_KEY,
    queryFn: fetchPolicy,
    initialData: initial,
    initialDataUpdatedAt: renderedAt,
    refetchInterval: POLICY_POLL_MS,
    refetchOnWindowFocus: true,
  });
  const policy = policyQuery.data;
  const configRules = useMemo(() => policy.rules.filter((r) => r.source === 'config'), [policy]);
  const serverRules = useMemo(() => draftFrom(policy), [policy]);

  const [edits, setEdits] = useState<DraftEdits>(NO_EDITS);
  const [saveErrors, setSaveErrors] = useState<{ byKey: Map<string, FieldErrors>; message: string } | null>(null);
  const nextKey = useRef(0);
  // The draft is edits on top of the rules as the server has them now, so it follows their changes.
  const { rules, removed, dirty } = useMemo(() => applyEdits(serverRules, edits), [serverRules, edits]);
  const added = useMemo(() => new Set(edits.added.map((rule) => rule.key)), [edits]);

  const edit = useCallback((change: (edits: DraftEdits) => DraftEdits) => {
    setSaveErrors(null);
    setEdits(change);
  }, []);

  const body = useMemo(() => JSON.stringify(rulesBody(rules)), [rules]);
  const previewBody = useDebounced(body, PREVIEW_DEBOUNCE_MS);
  const previewQuery = useQuery({
    queryKey: ['policy-preview', previewBody],
    queryFn: ({ signal }) => previewPolicy((JSON.parse(previewBody) as { rules: RuleBody[] }).rules, signal),
    enabled: dirty,
    placeholderData: keepPreviousData,
    staleTime: 0,
    retry: false,
  });
  const previewStale = previewBody !== body || previewQuery.isFetching;

  const save = useMutation({
    mutationFn: (toSave: { rules: DraftRule[]; etag: string | null }) => putPolicy(toSave.rules, toSave.etag),
    onSuccess: (saved) => {
      queryClient.setQueryData(POLICY_KEY, saved);
      setEdits(NO_EDITS);
      setSaveErrors(null);
    },
    onError: (error, sent) => {
      if (isPolicyApiError(error) && error.code === 'PRECONDITION_FAILED') {
        // The draft is edits on top of the server's rules: read them again and it sits on the new ones.
        void queryClient.invalidateQueries({ queryKey: POLICY_KEY });
        setSaveErrors({
          byKey: new Map(),
          message:
            'the rules changed while you edited (another tab, "Always allow" or the API). Your draft now sits on the current rules: look it over and save again.',
        });
        return;
      }
      const found = isPolicyApiError(error) ? errorsByRule(error.errors) : new Map<number, FieldErrors>();
      const byKey = new Map<string, FieldErrors>();
      for (const [index, errors] of found) {
        const rule = sent.rules[index];
        if (rule) byKey.set(rule.key, errors);
      }
      setSaveErrors({ byKey, message: error.message });
    },
  });
  const saveDraft = useCallback(() => {
    if (dirty && !save.isPending) save.mutate({ rules, etag: policy.etag });
  }, [dirty, rules, save, policy.etag]);
  const discard = useCallback(() => {
    setEdits(NO_EDITS);
    setSaveErrors(null);
  }, []);

  const firstField = useRef<HTMLSelectElement>(null);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.altKey) return;
      const mod = event.metaKey || event.ctrlKey;
      if (mod && event.key.toLowerCase() === 's') {
        event.preventDefault();
        saveDraft();
        return;
      }
      if (mod || event.shiftKey || isTypingTarget(event.target) || document.querySelector('dialog[open]')) return;
      if (event.key === 'n') {
        event.preventDefault();
        firstField.current?.focus();
      } else if (event.key === 's' && dirty) {
        event.preventDefault();
        saveDraft();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [saveDraft, dirty]);

  // Warn before leaving with unsaved rules.
  useEffect(() => {
    if (!dirty) return;
    const onBeforeUnload = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [dirty]);

  const previewError =
    isPolicyApiError(previewQuery.error) && previewQuery.error.errors.length > 0
      ? `The draft has rules the server refuses: ${previewQuery.error.message}`
      : previewQuery.error
        ? `The preview failed: ${previewQuery.error.message}`
        : null;

  return (
    <div className="flex flex-col gap-3" data-testid="policy-page">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <h1 className="text-base font-semibold">Policy</h1>
        <p className="text-xs text-fg-muted" data-testid="precedence">
          Each call is checked against <strong className="text-fg">deny</strong>, then{' '}
          <strong className="text-fg">ask</strong>, then <strong className="text-fg">allow</strong> rules; the first
          match wins. No match: the config's <code className="font-mono">policies</code> map, then the default for the
          tool's side effect (none/read allow, write/exec ask). A tool's own check (shell allowlist, HTTP hosts) refuses
          first.
        </p>
      </div>
      <div
        className={`sticky top-11 z-20 flex flex-wrap items-center gap-2 rounded border px-2 py-1.5 text-[12px] ${
          dirty ? 'border-amber-300 bg-amber-50 dark:border-amber-800 dark:bg-amber-950/40' : 'border-line bg-subtle'
        }`}
        data-testid="draft-bar"
        data-dirty={dirty}
      >
        {dirty ? (
          <span>
            <strong>Unsaved draft:</strong> {added.size} added, {removed.length} removed. Check the preview, then save.
          </span>
        ) : (
          <span className="text-fg-muted">
            No unsaved changes. {policy.rules.length} {policy.rules.length === 1 ? 'rule' : 'rules'} in force.
          </span>
        )}
        {saveErrors ? (
          <span className="text-red-700 dark:text-red-300" role="alert" data-testid="save-error">
            Not saved: {saveErrors.message}
          </span>
        ) : null}
        <span className="ml-auto flex items-center gap-1.5 text-fg-muted">
          <span data-keyboard-hint className="hidden sm:inline">
            <Kbd>n</Kbd> new rule · <Kbd>s</Kbd> save · <Kbd>Esc</Kbd> clear form
          </span>
          <button
            type="button"
            onClick={discard}
            disabled={!dirty || save.isPending}
            className="inline-flex items-center gap-1 rounded border border-line bg-bg px-2 py-0.5 text-fg hover:bg-muted disabled:opacity-50"
            data-testid="draft-discard"
          >
            <Undo2 size={13} aria-hidden />
            Discard
          </button>
          <button
            type="button"
            onClick={saveDraft}
            disabled={!dirty || save.isPending}
            className="inline-flex items-center gap-1 rounded border border-accent bg-accent px-2 py-0.5 font-medium text-white hover:opacity-90 disabled:border-line disabled:bg-bg disabled:text-fg-muted dark:text-bg dark:disabled:text-fg-muted"
            title="Save the draft (s, Ctrl+S)"
            data-testid="draft-save"
          >
            {save.isPending ? (
              <LoaderCircle size={13} className="animate-spin" aria-hidden />
            ) : (
              <Save size={13} aria-hidden />
            )}
            Save
          </button>
        </span>
      </div>
      <div className="grid gap-4 xl:grid-cols-[minmax(0,7fr)_minmax(0,6fr)]">
        <div className="flex min-w-0 flex-col gap-3">
          <RuleForm
            tools={tools}
            firstField={firstField}
            onAdd={(rule) =>
              edit((current) => ({
                ...current,
                added: [...current.added, { ...rule, key: `new-${nextKey.current++}` }],
              }))
            }
          />
          <RuleLists
            configRules={configRules}
            rules={rules}
            added={added}
            removed={removed}
            errors={saveErrors?.byKey ?? new Map()}
            configFile={policy.config_file}
            onRemove={(key) => edit((current) => removeRule(current, key))}
            onRestore={(rule) => edit((current) => restoreRule(current, rule.key))}
          />
          <p className="text-[12px] text-fg-muted" data-testid="config-note">
            {policy.config_file ? (
              <>
                Rules from <code className="font-mono text-fg">{policy.config_file}</code> are read-only here: edit its{' '}
                <code className="font-mono">permissions</code> and restart Toolscope to change them.
              </>
            ) : (
              <>
                No config file is in use; rules written in one under <code className="font-mono">permissions</code>{' '}
                would be read-only here.
              </>
            )}{' '}
            Rules saved here (and by "Always allow") are kept in the data folder's{' '}
            <code className="font-mono">policy.json</code>.
          </p>
        </div>
        <div className="flex min-w-0 flex-col gap-3">
          <PreviewPanel dirty={dirty} preview={previewQuery.data} loading={previewStale} error={previewError} />
          <ToolDefaults tools={tools} />
        </div>
      </div>
    </div>
  );
}
