'use client';

import { Check, X } from 'lucide-react';
import { useMemo } from 'react';
import { type FieldIssue, issuesByPath, mergeFieldIssues } from '@/lib/ui/json-issues';
import { type JsonSchema, validateAgainstSchema } from '@/lib/ui/json-schema';
import { ObjectFields } from '../tools/schema-form';

/** The edit in progress: one value, shown as the playground's form or as raw JSON text. */
export interface ArgumentsDraft {
  mode: 'form' | 'json';
  value: unknown;
  text: string;
  jsonError: string | null;
}

/** A draft prefilled with the call's (redacted) arguments. */
export function draftOf(args: unknown): ArgumentsDraft {
  return { mode: 'form', value: args, text: JSON.stringify(args, null, 2), jsonError: null };
}

const tabClass =
  'rounded px-2 py-0.5 text-xs text-fg-muted hover:bg-muted aria-pressed:bg-muted aria-pressed:font-medium aria-pressed:text-fg';

/**
 * "Approve with edits": the call's arguments in the playground's schema form, or as raw JSON,
 * kept in sync. The server validates the edit again: its field issues (a 400) are shown on the
 * fields, and the call stays pending. Without a schema (an unknown tool) only JSON is offered.
 */
export function EditArguments({
  traceId,
  schema,
  draft,
  onDraft,
  serverIssues,
  busy,
  onSubmit,
  onCancel,
}: {
  traceId: string;
  schema: JsonSchema | null;
  draft: ArgumentsDraft;
  onDraft: (draft: ArgumentsDraft) => void;
  serverIssues: FieldIssue[];
  busy: boolean;
  onSubmit: (value: unknown) => void;
  onCancel: () => void;
}) {
  const mode = schema ? draft.mode : 'json';
  const localIssues = useMemo(
    () => (schema && !draft.jsonError ? validateAgainstSchema(schema, draft.value) : []),
    [schema, draft.value, draft.jsonError],
  );
  const shown = mergeFieldIssues(localIssues, serverIssues);
  const byPath = issuesByPath(shown);
  const jsonId = `edit-json-${traceId}`;

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
    <form
      className="flex flex-col gap-2 rounded border border-blue-300 bg-bg p-2.5 dark:border-blue-800"
      aria-label="Edit arguments"
      data-testid="edit-form"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        if (!draft.jsonError) onSubmit(draft.value);
      }}
      onKeyDown={(event) => {
        if (event.key === 'Escape') onCancel();
      }}
    >
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
      <div className="flex items-center gap-2">
        <button
          type="submit"
          disabled={busy || draft.jsonError !== null}
          className="inline-flex items-center gap-1 rounded bg-emerald-700 px-2.5 py-1 text-xs font-medium text-white hover:bg-emerald-800 disabled:opacity-50 dark:bg-emerald-600 dark:hover:bg-emerald-500"
          data-testid="approve-edited"
        >
          <Check size={13} aria-hidden />
          {busy ? 'Approving…' : 'Approve with edits'}
        </button>
        <button
          type="button"
          onClick={onCancel}
          className="inline-flex items-center gap-1 rounded border border-line px-2 py-1 text-xs text-fg-muted hover:bg-muted hover:text-fg"
        >
          <X size={13} aria-hidden />
          Cancel
        </button>
        <span className="text-[11px] text-fg-muted">
          A masked secret left as shown keeps its recorded value; type the whole value to change it.
        </span>
      </div>
    </form>
  );
}
