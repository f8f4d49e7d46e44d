'use client';

import { useCallback, useMemo, useRef, useState } from 'react';
import { type FaultRuleJson, type FaultRulesJson, isFaultApiError } from '@/lib/ui/faults';
import {
  createBody,
  draftFromRule,
  emptyDraft,
  errorsByField,
  type FaultDraft,
  type FaultTool,
  patchBody,
} from './fault-draft';
import { FaultsBar } from './faults-bar';
import { FaultsEmpty } from './faults-empty';
import { FaultsNotice, useNotice } from './faults-notice';
import { RuleForm } from './rule-form';
import { RulesTable } from './rules-table';
import { useFaultMutations, useFaultRules } from './use-fault-rules';
import { useFaultsKeys } from './use-faults-keys';

/** While the page is visible the rules (hit counters) are read this often. */
const PAGE_POLL_MS = 2_000;

type FormState = { mode: 'create' } | { mode: 'edit'; id: string } | null;

/** Whether the rule matches the filter text (name, id, tool, session, kind). */
function matches(rule: FaultRuleJson, text: string): boolean {
  if (!text) return true;
  const needle = text.toLowerCase();
  return [rule.name, rule.id, rule.tool, rule.session_id ?? '', rule.kind].some((v) =>
    v.toLowerCase().includes(needle),
  );
}

/**
 * The Faults page: every fault rule with its hit counter, and what can be done to them.
 * 1. The rules are a query shared with the navigation's indicator, first rendered by the server,
 *    read again every 2 s while the page is visible; every change updates it from the server's
 *    answer and reads it again.
 * 2. Create and edit in one form above the table; the server's 400 names fields and each
 *    complaint shows at its field. An edit sends only what changed (an untouched seed keeps the draws).
 * 3. Enable / disable per row, delete after a confirmation in the row; "Disable all" at once,
 *    "Delete all" after a confirmation.
 * 4. Keys: `n` new rule, `/` filter, `j`/`k` select, `e` edit, `t` enable/disable, `d` delete, Esc closes.
 */
export function FaultsView({
  initial,
  tools,
  renderedAt,
  highlightId,
}: {
  initial: FaultRulesJson;
  tools: FaultTool[];
  renderedAt: number;
  /** The rule named in the URL (`?rule=`), e.g. from a trace's fault badge. */
  highlightId: string | null;
}) {
  const query = useFaultRules({ initial, renderedAt, pollMs: PAGE_POLL_MS });
  const rules = query.data?.faults ?? initial.faults;
  const active = query.data?.active ?? initial.active;
  const now = query.dataUpdatedAt || renderedAt;
  const { create, update, remove, disableAll, reset } = useFaultMutations();

  const [form, setForm] = useState<FormState>(null);
  const [draft, setDraft] = useState<FaultDraft>(() => emptyDraft());
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [filter, setFilter] = useState('');
  const [selectedId, setSelectedId] = useState<string | null>(highlightId);
  const [confirmingId, setConfirmingId] = useState<string | null>(null);
  const [confirmReset, setConfirmReset] = useState(false);
  const [pendingIds, setPendingIds] = useState<Set<string>>(() => new Set());
  const [notice, setNotice] = useNotice();
  const firstField = useRef<HTMLInputElement>(null);
  const filterInput = useRef<HTMLInputElement>(null);

  const shown = useMemo(() => rules.filter((rule) => matches(rule, filter.trim())), [rules, filter]);
  const editing = form?.mode === 'edit' ? (rules.find((r) => r.id === form.id) ?? null) : null;

  const openCreate = useCallback(() => {
    setForm({ mode: 'create' });
    setDraft((current) => (form?.mode === 'create' ? current : emptyDraft(tools[0]?.name ?? '')));
    setErrors({});
    requestAnimationFrame(() => firstField.current?.focus());
  }, [form, tools]);
  const openEdit = useCallback((rule: FaultRuleJson) => {
    setForm({ mode: 'edit', id: rule.id });
    setDraft(draftFromRule(rule));
    setErrors({});
    setSelectedId(rule.id);
    requestAnimationFrame(() => firstField.current?.focus());
  }, []);
  const closeForm = useCallback(() => {
    setForm(null);
    setErrors({});
  }, []);

  const showRefusal = (error: unknown) => {
    if (isFaultApiError(error)) {
      const byField = errorsByField(error.errors, draft.kind);
      setErrors(Object.keys(byField).length > 0 ? byField : { other: error.message });
    } else setErrors({ other: error instanceof Error ? error.message : String(error) });
  };
  const submit = () => {
    const at = Date.now();
    if (form?.mode === 'create') {
      create.mutateAsync(createBody(draft, at)).then((rule) => {
        closeForm();
        setSelectedId(rule.id);
        setNotice({ ok: true, text: `Created “${rule.name}”${rule.active ? ': it is active now' : ''}.` });
      }, showRefusal);
    } else if (form?.mode === 'edit') {
      if (!editing) {
        setErrors({ other: 'This rule was deleted meanwhile.' });
        return;
      }
      const body = patchBody(editing, draft, at);
      if (Object.keys(body).length === 0) {
        closeForm();
        return;
      }
      update.mutateAsync({ id: editing.id, body }).then((rule) => {
        closeForm();
        setNotice({ ok: true, text: `Saved “${rule.name}”.` });
      }, showRefusal);
    }
  };

  // Writes use mutateAsync: a mutation's per-call callbacks fire for its latest call only,
  // and a save and a row switched meanwhile (or two rows switched quickly) must each settle.
  const toggle = useCallback(
    (rule: FaultRuleJson) => {
      setPendingIds((ids) => new Set(ids).add(rule.id));
      update
        .mutateAsync({ id: rule.id, body: { enabled: !rule.enabled } })
        .catch((error: Error) => setNotice({ ok: false, text: `Could not change “${rule.name}”: ${error.message}` }))
        .finally(() =>
          setPendingIds((ids) => {
            const next = new Set(ids);
            next.delete(rule.id);
            return next;
          }),
        );
    },
    [update, setNotice],
  );
  const resetHits = (rule: FaultRuleJson) =>
    update.mutateAsync({ id: rule.id, body: { hits: 0 } }).then(
      (saved) => setNotice({ ok: true, text: `Hits of “${saved.name}” reset to 0.` }),
      (error: Error) => setNotice({ ok: false, text: `Could not reset “${rule.name}”: ${error.message}` }),
    );
  const deleteRule = (rule: FaultRuleJson) => {
    setConfirmingId(null);
    if (form?.mode === 'edit' && form.id === rule.id) closeForm();
    remove.mutateAsync(rule.id).then(
      () => setNotice({ ok: true, text: `Deleted “${rule.name}”.` }),
      (error: Error) => setNotice({ ok: false, text: `Could not delete “${rule.name}”: ${error.message}` }),
    );
  };
  const runDisableAll = () =>
    disableAll.mutate(undefined, {
      onSuccess: ({ disabled }) =>
        setNotice({ ok: true, text: `Disabled ${disabled} ${disabled === 1 ? 'rule' : 'rules'}: tools run normally.` }),
      onError: (error) => setNotice({ ok: false, text: `Could not disable the rules: ${error.message}` }),
    });
  const runReset = () => {
    setConfirmReset(false);
    reset.mutate(undefined, {
      onSuccess: ({ deleted }) => {
        closeForm();
        setNotice({ ok: true, text: `Deleted ${deleted} ${deleted === 1 ? 'rule' : 'rules'}.` });
      },
      onError: (error) => setNotice({ ok: false, text: `Could not delete the rules: ${error.message}` }),
    });
  };

  const selected = shown.find((r) => r.id === selectedId) ?? null;
  useFaultsKeys({
    create: openCreate,
    filter: () => filterInput.current?.focus(),
    move: (step) => {
      if (shown.length === 0) return;
      const at = shown.findIndex((r) => r.id === selectedId);
      const next = at === -1 ? (step > 0 ? 0 : shown.length - 1) : Math.min(shown.length - 1, Math.max(0, at + step));
      setSelectedId(shown[next]?.id ?? null);
      setConfirmingId(null);
    },
    edit: () => selected && openEdit(selected),
    toggle: () => selected && toggle(selected),
    remove: () => selected && setConfirmingId(selected.id),
    dismiss: () => {
      setConfirmingId(null);
      setConfirmReset(false);
      if (form) closeForm();
    },
  });

  return (
    <div className="flex flex-col gap-3" data-testid="faults-page">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <h1 className="text-base font-semibold">Faults</h1>
        <p className="text-xs text-fg-muted">
          Break tools on purpose: each rule acts inside the execute stage, per attempt, so timeouts, retries, fallbacks
          and the circuit breaker react as to a real failure. Every injected fault is recorded on its attempt and the
          call is marked <strong className="text-fg">fault-injected</strong>.
        </p>
      </div>

      <FaultsBar
        active={active}
        total={rules.length}
        enabled={rules.filter((r) => r.enabled).length}
        filter={filter}
        onFilter={setFilter}
        filterInput={filterInput}
        onCreate={openCreate}
        onDisableAll={runDisableAll}
        disabling={disableAll.isPending}
        onDeleteAll={runReset}
        deleting={reset.isPending}
        confirmingDeleteAll={confirmReset}
        onConfirmDeleteAll={setConfirmReset}
      />

      {form ? (
        <RuleForm
          key={form.mode === 'edit' ? form.id : 'new'}
          draft={draft}
          onChange={(change) => {
            setDraft(change);
            setErrors({});
          }}
          editing={editing}
          tools={tools}
          errors={errors}
          pending={create.isPending || update.isPending}
          onSubmit={submit}
          onClose={closeForm}
          firstField={firstField}
        />
      ) : null}

      {rules.length === 0 ? (
        <FaultsEmpty onCreate={openCreate} />
      ) : shown.length === 0 ? (
        <p className="rounded border border-dashed border-line px-2 py-1 text-[12px] text-fg-muted">
          No rule matches “{filter.trim()}”.
        </p>
      ) : (
        <RulesTable
          rules={shown}
          now={now}
          selectedId={selectedId}
          highlightId={highlightId}
          confirmingId={confirmingId}
          pendingIds={pendingIds}
          onSelect={setSelectedId}
          onToggle={toggle}
          onResetHits={resetHits}
          onEdit={openEdit}
          onAskDelete={(rule) => {
            setSelectedId(rule.id);
            setConfirmingId(rule.id);
          }}
          onDelete={deleteRule}
          onCancelDelete={() => setConfirmingId(null)}
        />
      )}
      <FaultsNotice notice={notice} />
      {query.isError ? (
        <p role="alert" className="text-[12px] text-red-700 dark:text-red-300" data-testid="faults-load-error">
          Could not read the rules again: {query.error.message}. Showing the last known state.
        </p>
      ) : null}
    </div>
  );
}
