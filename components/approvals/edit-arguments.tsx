'use client';

import { Check, X } from 'lucide-react';
import type { FieldIssue } from '@/lib/ui/json-issues';
import type { JsonSchema } from '@/lib/ui/json-schema';
import { type ArgumentsDraft, ArgumentsEditor } from '../tools/arguments-editor';

export { type ArgumentsDraft, draftOf } from '../tools/arguments-editor';

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
      <ArgumentsEditor
        idPrefix={`edit-${traceId}`}
        schema={schema}
        draft={draft}
        onDraft={onDraft}
        serverIssues={serverIssues}
      />
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
