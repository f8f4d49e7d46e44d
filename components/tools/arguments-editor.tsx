'use client';

import { useMemo } from 'react';
import { type FieldIssue, issuesByPath, mergeFieldIssues } from '@/lib/ui/json-issues';
import { type JsonSchema, validateAgainstSchema } from '@/lib/ui/json-schema';
import { ObjectFields } from './schema-form';

/** An edit in progress: one value, shown as the schema form or as raw JSON text. */
export interface ArgumentsDraft {
  mode: 'form' | 'json';
  value: unknown;
  text: string;
  jsonError: string | null;
}

/** A draft prefilled with a call's (redacted) arguments. */
export function draftOf(args: unknown): ArgumentsDraft {
  return { mode: 'form', value: args, text: JSON.stringify(args, null, 2), jsonError: null };
}

const tabClass =
  'rounded px-2 py-0.5 text-xs text-fg-muted hover:bg-muted aria-pressed:bg-muted aria-pressed:font-medium aria-pressed:text-fg';

/**
 * A recorded call's arguments to edit: the playground's schema form, or raw JSON, kept in sync
 * (one value). Local issues come from the schema, `serverIssues` from the server's answer (a 400),
 * each shown once, on its field. Without a schema (an unknown tool) only JSON is offered. Used by
 * "Approve with edits" and "Replay with edits"; the caller owns the form and its buttons.
 */
export function ArgumentsEditor({
  idPrefix,
  tool,
  schema,
  draft,
  onDraft,
  serverIssues,
}: {
  /** Makes the ids of this editor unique on the page. */
  idPrefix: string;
  /** The tool's name, for messages such as "Unknown field …; <tool> takes: …". */
  tool?: string;
  schema: JsonSchema | null;
  draft: ArgumentsDraft;
  onDraft: (draft: ArgumentsDraft) => void;
  serverIssues: FieldIssue[];
}) {
  const mode = schema ? draft.mode : 'json';
  const localIssues = useMemo(
    () => (schema && !draft.jsonError ? validateAgainstSchema(schema, draft.value, tool) : []),
    [schema, draft.value, draft.jsonError, tool],
  );
  const shown = mergeFieldIssues(localIssues, serverIssues);
  const byPath = issuesByPath(shown);
  const jsonId = `${idPrefix}-json`;

  const fromForm = (value: unknown) =>
    onDraft({ ...draft, value, text: JSON.stringify(value, null, 2), jsonError: null });
  const fromText = (text: string) => {
    try {
      onDraft({ ...draft, text, value: JSON.parse(text), jsonError: null });
    } catch (error) {
      onDraft({ ...draft, text, jsonError: (error as Error).message });
    }
  };

  return (
    <>
      <fieldset className="flex items-center gap-1">
        <legend className="sr-only">Editor</legend>
        {schema && (
          <button
            type="button"
            aria-pressed={mode === 'form'}
            className={tabClass}
            onClick={() => onDraft({ ...draft, mode: 'form' })}
            disabled={draft.jsonError !== null}
            title={draft.jsonError ? 'Fix the JSON first' : undefined}
            data-testid="edit-mode-form"
          >
            Form
          </button>
        )}
        <button
          type="button"
          aria-pressed={mode === 'json'}
          className={tabClass}
          onClick={() => onDraft({ ...draft, mode: 'json' })}
          data-testid="edit-mode-json"
        >
          JSON
        </button>
        <span className="ml-auto text-[11px] text-fg-muted" aria-live="polite" data-testid="edit-validity">
          {draft.jsonError
            ? 'JSON does not parse'
            : localIssues.length === 0
              ? schema
                ? 'Matches the schema — the server checks again'
                : 'The server checks the arguments'
              : `${localIssues.length} issue${localIssues.length === 1 ? '' : 's'}`}
        </span>
      </fieldset>
      {mode === 'form' && schema ? (
        <ObjectFields schema={schema} value={draft.value} path={[]} issues={byPath} onChange={fromForm} />
      ) : (
        <div className="flex flex-col gap-1">
          <label htmlFor={jsonId} className="text-xs text-fg-muted">
            Arguments as JSON
          </label>
          <textarea
            id={jsonId}
            value={draft.text}
            onChange={(event) => fromText(event.target.value)}
            rows={Math.min(16, Math.max(4, draft.text.split('\n').length + 1))}
            spellCheck={false}
            aria-invalid={draft.jsonError !== null}
            className="rounded border border-line bg-bg p-2 font-mono text-[12px] leading-5"
            data-testid="edit-json"
          />
          {draft.jsonError && (
            <p className="text-xs text-red-700 dark:text-red-300" role="status">
              Not valid JSON: {draft.jsonError}
            </p>
          )}
        </div>
      )}
      {shown.length > 0 && (mode === 'json' || byPath.has('')) && (
        <ul className="text-xs text-red-700 dark:text-red-300" data-testid="edit-issues">
          {shown
            .filter((issue) => mode === 'json' || issue.path === '')
            .map((issue) => (
              <li key={`${issue.path}:${issue.message}`}>
                <code className="font-mono">{issue.path || '(arguments)'}</code>: {issue.message}
              </li>
            ))}
        </ul>
      )}
    </>
  );
}
