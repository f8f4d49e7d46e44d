'use client';

import { Lock, RotateCcw, X } from 'lucide-react';
import { Tag } from '../status';
import { PolicyBadge } from '../tools/policy-badge';
import { type DraftRule, type FieldErrors, LISTS, type PolicyRuleJson } from './policy-draft';
import { splitRule } from './specifier';

const LIST_TEXT = {
  deny: 'matching calls are refused (PERMISSION_DENIED)',
  ask: 'matching calls wait in the approvals queue for a person',
  allow: 'matching calls run without asking',
} as const;

const td = 'px-2 py-1 align-top';

function RuleCell({ rule }: { rule: string }) {
  const { tool, specifier } = splitRule(rule);
  return (
    <span className="font-mono text-[12px]">
      <span className="font-medium">{tool}</span>
      {specifier !== null ? (
        <>
          <span className="text-fg-muted">(</span>
          <span className="text-accent">{specifier}</span>
          <span className="text-fg-muted">)</span>
        </>
      ) : null}
    </span>
  );
}

function SessionCell({ session }: { session: string | null }) {
  return session ? (
    <span className="break-all font-mono text-[12px]" title="Only calls of this session">
      {session}
    </span>
  ) : (
    <span className="text-fg-muted">every session</span>
  );
}

/**
 * The rules in force and the draft's, grouped by list in the order they are consulted. Config
 * rules are read-only (the config file is named); data rules can be removed, and rules removed in
 * the draft stay visible, struck through, until saved or restored.
 */
export function RuleLists({
  configRules,
  rules,
  added,
  removed,
  errors,
  configFile,
  onRemove,
  onRestore,
}: {
  configRules: PolicyRuleJson[];
  rules: DraftRule[];
  added: Set<string>;
  removed: DraftRule[];
  errors: Map<string, FieldErrors>;
  configFile: string | null;
  onRemove: (key: string) => void;
  onRestore: (rule: DraftRule) => void;
}) {
  return (
    <div className="flex flex-col gap-3">
      {LISTS.map((list, order) => {
        const config = configRules.filter((r) => r.list === list);
        const data = rules.filter((r) => r.list === list);
        const gone = removed.filter((r) => r.list === list);
        const count = config.length + data.length;
        return (
          <section
            key={list}
            aria-labelledby={`list-${list}`}
            data-testid={`rules-${list}`}
            className="flex flex-col gap-1"
          >
            <h2
              id={`list-${list}`}
              className="flex items-center gap-2 text-[11px] font-semibold uppercase tracking-wide"
            >
              <span className="text-fg-muted">{order + 1}.</span>
              <PolicyBadge policy={list} text={list} />
              <span className="font-normal normal-case tracking-normal text-fg-muted">
                {count} {count === 1 ? 'rule' : 'rules'} · {LIST_TEXT[list]}
              </span>
            </h2>
            {count + gone.length === 0 ? (
              <p className="rounded border border-dashed border-line px-2 py-1 text-[12px] text-fg-muted">
                No {list} rules.
              </p>
            ) : (
              <div className="overflow-x-auto rounded border border-line">
                <table className="w-full border-collapse text-left">
                  <caption className="sr-only">{list} rules, in the order they are tried</caption>
                  <thead className="bg-subtle text-[11px] uppercase tracking-wide text-fg-muted">
                    <tr>
                      <th scope="col" className="w-8 px-2 py-1 font-medium">
                        #
                      </th>
                      <th scope="col" className="px-2 py-1 font-medium">
                        Rule
                      </th>
                      <th scope="col" className="px-2 py-1 font-medium">
                        Session
                      </th>
                      <th scope="col" className="px-2 py-1 font-medium">
                        Source
                      </th>
                      <th scope="col" className="w-20 px-2 py-1 font-medium">
                        <span className="sr-only">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {config.map((rule, i) => (
                      <tr
                        key={rule.id}
                        className="border-t border-line"
                        data-testid="rule-row"
                        data-source="config"
                        data-rule={rule.rule}
                      >
                        <td className={`${td} tabular-nums text-fg-muted`}>{i + 1}</td>
                        <td className={td}>
                          <RuleCell rule={rule.rule} />
                        </td>
                        <td className={td}>
                          <SessionCell session={rule.session} />
                        </td>
                        <td className={`${td} text-[12px]`}>
                          <span
                            className="inline-flex items-center gap-1 text-fg-muted"
                            title={`Read-only here: edit ${configFile ?? 'the config file'} and restart Toolscope to change it`}
                          >
                            <Lock size={11} aria-hidden />
                            <span className="font-mono">{configFile ?? 'config file'}</span>
                          </span>
                        </td>
                        <td className={`${td} text-[11px] text-fg-muted`}>read-only</td>
                      </tr>
                    ))}
                    {data.map((rule, i) => {
                      const isNew = added.has(rule.key);
                      const error = errors.get(rule.key);
                      return (
                        <tr
                          key={rule.key}
                          className={`border-t border-line ${isNew ? 'bg-emerald-50 dark:bg-emerald-950/30' : ''}`}
                          data-testid="rule-row"
                          data-source="data"
                          data-rule={rule.rule}
                          data-session={rule.session ?? ''}
                          data-draft={isNew ? 'added' : undefined}
                        >
                          <td className={`${td} tabular-nums text-fg-muted`}>{config.length + i + 1}</td>
                          <td className={td}>
                            <RuleCell rule={rule.rule} />
                            {error ? (
                              <p
                                className="text-[12px] text-red-700 dark:text-red-300"
                                role="alert"
                                data-testid="rule-row-error"
                              >
                                {[error.rule, error.session, error.other].filter(Boolean).join(' ')}
                              </p>
                            ) : null}
                          </td>
                          <td className={td}>
                            <SessionCell session={rule.session} />
                          </td>
                          <td className={`${td} text-[12px] text-fg-muted`}>
                            {isNew ? (
                              <Tag tone="info">new · unsaved</Tag>
                            ) : (
                              <span className="font-mono">policy.json</span>
                            )}
                          </td>
                          <td className={`${td} text-right`}>
                            <button
                              type="button"
                              onClick={() => onRemove(rule.key)}
                              className="inline-flex items-center gap-0.5 rounded px-1 text-[12px] text-fg-muted hover:bg-muted hover:text-red-700 dark:hover:text-red-300"
                              aria-label={`Remove ${list} ${rule.rule}${rule.session ? ` for session ${rule.session}` : ''}`}
                              data-testid="rule-remove"
                            >
                              <X size={12} aria-hidden />
                              <span className="hidden sm:inline">Remove</span>
                            </button>
                          </td>
                        </tr>
                      );
                    })}
                    {gone.map((rule) => (
                      <tr
                        key={rule.key}
                        className="border-t border-line bg-red-50/60 dark:bg-red-950/20"
                        data-testid="rule-row-removed"
                        data-rule={rule.rule}
                      >
                        <td className={`${td} text-fg-muted`}>–</td>
                        <td className={`${td} line-through opacity-70`}>
                          <RuleCell rule={rule.rule} />
                        </td>
                        <td className={`${td} line-through opacity-70`}>
                          <SessionCell session={rule.session} />
                        </td>
                        <td className={td}>
                          <Tag tone="warn">removed · unsaved</Tag>
                        </td>
                        <td className={`${td} text-right`}>
                          <button
                            type="button"
                            onClick={() => onRestore(rule)}
                            className="inline-flex items-center gap-0.5 rounded px-1 text-[12px] text-fg-muted hover:bg-muted hover:text-fg"
                            aria-label={`Restore ${list} ${rule.rule}`}
                            data-testid="rule-restore"
                          >
                            <RotateCcw size={12} aria-hidden />
                            <span className="hidden sm:inline">Restore</span>
                          </button>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
        );
      })}
    </div>
  );
}
