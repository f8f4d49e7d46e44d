'use client';

import { Play, ShieldAlert } from 'lucide-react';
import Link from 'next/link';
import { useMemo, useState, useTransition } from 'react';
import type { PlaygroundRun } from '@/app/tools/[name]/actions';
import { formatDuration } from '@/lib/ui/format';
import { fieldIssuesOf, issuesByPath, mergeFieldIssues } from '@/lib/ui/json-issues';
import { initialValue, type JsonSchema, validateAgainstSchema } from '@/lib/ui/json-schema';
import { StatusBadge } from '../status';
import { JsonTree } from '../trace/json-tree';
import { LargeText } from '../trace/large-text';
import { InlineDecision, useFollowedRun } from './followed-run';
import { ObjectFields } from './schema-form';

type Mode = 'form' | 'json';

/**
 * The playground of one tool: a form generated from its JSON Schema and a raw-JSON editor that
 * stay in sync (one value; the JSON text is re-derived from the form, and every valid JSON edit
 * updates the form). Inline hints come from the schema; Run goes through the server action and the
 * real executor, whose per-field issues are shown on the fields too, each issue once.
 *
 * In JSON mode Run sends the text itself, as a model sends OpenAI arguments: malformed JSON is
 * sent too (with a warning), so the executor's parse stage can be tried from here.
 */
export function Playground({
  tool,
  schema,
  policyNote,
  run,
}: {
  tool: string;
  schema: JsonSchema;
  /** Set when the policy will not simply allow the call (ask / deny). */
  policyNote: string | null;
  /** `input` is an object (form) or JSON text (JSON mode), which the executor parses. */
  run: (name: string, input: unknown) => Promise<PlaygroundRun>;
}) {
  const [value, setValue] = useState<unknown>(() => initialValue(schema));
  const [mode, setMode] = useState<Mode>('form');
  const [text, setText] = useState(() => JSON.stringify(initialValue(schema), null, 2));
  const [jsonError, setJsonError] = useState<string | null>(null);
  const [touched, setTouched] = useState(false);
  const [result, setResult] = useState<PlaygroundRun | null>(null);
  const [pending, startTransition] = useTransition();

  const localIssues = useMemo(() => validateAgainstSchema(schema, value, tool), [schema, value, tool]);
  const serverIssues =
    result?.ok && result.error?.code === 'INVALID_ARGUMENTS' ? fieldIssuesOf(result.error.details) : [];
  // While the text does not parse, the form's value is stale: its local issues would mislead.
  const current = jsonError ? [] : localIssues;
  const shown = mergeFieldIssues(touched ? current : [], serverIssues);
  const byPath = issuesByPath(shown);
  const rootIssues = byPath.get('') ?? [];

  const updateFromForm = (next: unknown) => {
    setTouched(true);
    setValue(next);
    setText(JSON.stringify(next, null, 2));
    setJsonError(null);
  };
  const updateFromText = (next: string) => {
    setTouched(true);
    setText(next);
    try {
      setValue(JSON.parse(next));
      setJsonError(null);
    } catch (error) {
      setJsonError((error as Error).message);
    }
  };

  const onRun = () => {
    setTouched(true);
    const input = mode === 'json' ? text : value;
    startTransition(async () => {
      try {
        setResult(await run(tool, input));
      } catch (error) {
        setResult({ ok: false, message: `The run failed: ${String(error)}` });
      }
    });
  };

  const tabClass =
    'rounded px-2 py-0.5 text-xs text-fg-muted hover:bg-muted aria-pressed:bg-muted aria-pressed:font-medium aria-pressed:text-fg';

  return (
    <div className="flex flex-col gap-3" data-testid="playground">
      {policyNote && (
        <p
          className="flex items-start gap-1.5 rounded border border-amber-300 bg-amber-50 p-2 text-xs text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200"
          data-testid="policy-note"
        >
          <ShieldAlert size={14} className="mt-px shrink-0" aria-hidden />
          {policyNote}
        </p>
      )}
      <form
        className="flex flex-col gap-3 rounded border border-line p-3"
        onSubmit={(e) => {
          e.preventDefault();
          onRun();
        }}
        aria-label={`Arguments for ${tool}`}
        noValidate
      >
        <fieldset className="flex items-center gap-1">
          <legend className="sr-only">Editor</legend>
          <button
            type="button"
            aria-pressed={mode === 'form'}
            className={tabClass}
            onClick={() => setMode('form')}
            data-testid="mode-form"
          >
            Form
          </button>
          <button
            type="button"
            aria-pressed={mode === 'json'}
            className={tabClass}
            onClick={() => setMode('json')}
            data-testid="mode-json"
          >
            JSON
          </button>
          <span className="ml-auto text-[11px] text-fg-muted" aria-live="polite" data-testid="local-validity">
            {jsonError
              ? 'JSON does not parse — Run sends it as text; the parse stage will refuse it'
              : localIssues.length === 0
                ? 'Arguments match the schema'
                : `${localIssues.length} issue${localIssues.length === 1 ? '' : 's'} — the executor will refuse these arguments`}
          </span>
        </fieldset>
        {mode === 'form' ? (
          <ObjectFields schema={schema} value={value} path={[]} issues={byPath} onChange={updateFromForm} />
        ) : (
          <div className="flex flex-col gap-1">
            <label htmlFor="playground-json" className="text-xs text-fg-muted">
              Arguments as JSON (kept in sync with the form)
            </label>
            <textarea
              id="playground-json"
              data-testid="playground-json"
              value={text}
              onChange={(e) => updateFromText(e.target.value)}
              rows={10}
              spellCheck={false}
              aria-invalid={jsonError !== null}
              className="rounded border border-line bg-bg p-2 font-mono text-[12px] leading-5"
            />
            {jsonError && (
              <p
                className="rounded border border-amber-300 bg-amber-50 p-1.5 text-xs text-amber-900 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-200"
                role="status"
                data-testid="json-warning"
              >
                Not valid JSON ({jsonError}) — it will be sent as a string and fail at the parse stage.
              </p>
            )}
            {shown.length > 0 && (
              <ul className="text-xs text-red-700 dark:text-red-300" data-testid="json-issues">
                {shown.map((i) => (
                  <li key={`${i.path}:${i.message}`}>
                    <code className="font-mono">{i.path || '(arguments)'}</code>: {i.message}
                  </li>
                ))}
              </ul>
            )}
          </div>
        )}
        {mode === 'form' && rootIssues.length > 0 && (
          <ul className="text-xs text-red-700 dark:text-red-300" data-testid="root-issues">
            {rootIssues.map((i) => (
              <li key={i.message}>{i.message}</li>
            ))}
          </ul>
        )}
        <div className="flex items-center gap-2">
          <button
            type="submit"
            disabled={pending}
            data-testid="playground-run"
            className="inline-flex items-center gap-1.5 rounded bg-accent px-3 py-1 text-sm font-medium text-white disabled:opacity-50 dark:text-black"
          >
            <Play size={13} aria-hidden />
            {pending ? 'Running…' : 'Run'}
          </button>
          <span className="text-xs text-fg-muted">
            Runs through the real executor and is recorded as a trace (actor: playground).
          </span>
        </div>
      </form>
      <div aria-live="polite">
        {result && <RunResult key={result.ok ? result.traceId : result.message} result={result} tool={tool} />}
      </div>
    </div>
  );
}

function RunResult({ result, tool }: { result: PlaygroundRun; tool: string }) {
  if (!result.ok) {
    return (
      <p role="alert" className="rounded border border-red-300 p-2 text-red-700 dark:border-red-800 dark:text-red-300">
        {result.message}
      </p>
    );
  }
  return <AnsweredResult run={result} tool={tool} />;
}

/** An answered run, followed until it finishes (a call waiting for approval runs once approved). */
function AnsweredResult({ run, tool }: { run: Extract<PlaygroundRun, { ok: true }>; tool: string }) {
  const result = useFollowedRun(run);
  return (
    <section
      className="flex flex-col gap-2 rounded border border-line p-3"
      data-testid="playground-result"
      data-status={result.status}
    >
      <div className="flex flex-wrap items-center gap-2">
        <h3 className="text-sm font-semibold">Result</h3>
        <StatusBadge status={result.status} testId="playground-status" />
        <span className="text-xs tabular-nums text-fg-muted">{formatDuration(result.latencyMs)}</span>
        <Link
          href={`/traces/${result.traceId}`}
          className="ml-auto text-xs text-accent hover:underline"
          data-testid="playground-trace-link"
        >
          Open trace →
        </Link>
      </div>
      {result.status === 'awaiting_approval' && (
        <div
          className="rounded border border-amber-300 bg-amber-50 p-2 text-xs dark:border-amber-800 dark:bg-amber-950/40"
          data-testid="playground-pending"
        >
          <p className="mb-2">Waiting for approval: nothing has run yet. The result appears here once it is decided.</p>
          <InlineDecision traceId={result.traceId} tool={tool} />
        </div>
      )}
      {result.status === 'running' && (
        <p className="text-xs text-fg-muted" data-testid="playground-running">
          Running… the result appears here when it finishes.
        </p>
      )}
      {result.error && (
        <div
          className={`rounded border p-2 text-xs ${result.error.kind === 'permission' ? 'border-orange-300 bg-orange-50 dark:border-orange-800 dark:bg-orange-950/40' : 'border-red-300 bg-red-50 dark:border-red-800 dark:bg-red-950/40'}`}
          data-testid="playground-error"
        >
          <div>
            <code className="font-mono font-semibold">{result.error.code}</code> {result.error.message}
          </div>
          {result.error.kind === 'permission' && (
            <div className="mt-1 text-fg-muted">
              The permission stage stopped this call before it ran; nothing was changed. Rules on the{' '}
              <Link href="/policy" className="text-accent hover:underline">
                Policy page
              </Link>{' '}
              decide which calls run, ask or are denied.
            </div>
          )}
        </div>
      )}
      {result.success &&
        (typeof result.output === 'string' ? (
          <LargeText text={result.output} />
        ) : (
          <div className="max-h-80 overflow-auto">
            <JsonTree value={result.output} label="Output" testId="playground-output" />
          </div>
        ))}
      <details>
        <summary className="cursor-pointer text-xs text-fg-muted">What the model saw</summary>
        <LargeText text={result.modelMessage} />
      </details>
    </section>
  );
}
